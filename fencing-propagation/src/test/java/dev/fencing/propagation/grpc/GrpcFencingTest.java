package dev.fencing.propagation.grpc;

import static dev.fencing.propagation.grpc.ItemsServer.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.MissingTokenException;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** What the gRPC pieces do on the wire, one at a time, against {@link ItemsServer}. */
class GrpcFencingTest {

    private static final ManagedChannel RAW = Grpc.newChannelBuilderForAddress("127.0.0.1", ItemsServer.port(),
            InsecureChannelCredentials.create()).build();

    @AfterAll
    static void closeChannel() throws InterruptedException {
        RAW.shutdownNow();
        assertThat(RAW.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private static String unique(String name) {
        return name + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
    }

    private static String call(Channel channel, MethodDescriptor<String, String> method, @Nullable FencingToken token,
            String request) {
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
        return ClientCalls.blockingUnaryCall(channel, method,
                token == null ? options : options.withOption(FencingClientInterceptor.TOKEN_OPTION, token), request);
    }

    private static Channel fromContext() {
        return ClientInterceptors.intercept(RAW, FencingClientInterceptor.fromContext());
    }

    /** A channel that sends {@code values} as the token metadata, as they are, and nothing else. */
    private static Channel sending(String... values) {
        Metadata headers = new Metadata();
        for (String value : values) {
            headers.put(FencingGrpc.TOKEN_KEY, value);
        }
        return ClientInterceptors.intercept(RAW, MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    @Test
    void theGateRefusesAStaleTokenWithTheRefusalTrailerAndTheHandlerNeverRuns() {
        String lock = unique("gated/lock");
        FencingToken newer = FencingToken.of(lock, 5);
        assertThat(call(fromContext(), ItemsServer.GATED_ECHO, newer, "")).isEqualTo(TokenHeader.format(newer));
        int reached = ItemsServer.GATED_CALLS.get();

        FencingToken stale = FencingToken.of(lock, 4);
        assertThatThrownBy(() -> call(sending(TokenHeader.format(stale)), ItemsServer.GATED_ECHO, null, ""))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    StaleTokenException expected = StaleTokenException.of(lock, stale, 5, Policy.MONOTONIC);
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription()).isEqualTo(expected.getMessage());
                    assertThat(e.getTrailers()).isNotNull();
                    assertThat(e.getTrailers().get(FencingGrpc.REFUSAL_KEY))
                            .isEqualTo(TokenRefusal.header(expected).orElseThrow())
                            .isEqualTo("stale; token=4; lock=gated%2F" + lock.substring("gated/".length()) + "; key="
                                    + TokenHeader.format(stale).substring("4; lock=".length()) + "; mark=5; policy=MONOTONIC");
                });
        assertThat(ItemsServer.GATED_CALLS.get()).as("calls that reached the gated handler").isEqualTo(reached);
    }

    @Test
    void callTurnsTheGatesRefusalIntoTheStoresException() {
        String lock = unique("gated");
        FencingToken newer = FencingToken.of(lock, 9);
        FencingGrpc.call(() -> call(fromContext(), ItemsServer.GATED_ECHO, newer, ""));
        FencingToken stale = FencingToken.of(lock, 8);

        assertThatThrownBy(() -> FencingGrpc.call(() -> call(sending(TokenHeader.format(stale)), ItemsServer.GATED_ECHO,
                null, ""))).isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(stale);
                    assertThat(e.highWaterMark()).isEqualTo(9);
                    assertThat(e.key()).isEqualTo(lock);
                    assertThat(e.policy()).isEqualTo(Policy.MONOTONIC);
                });
    }

    @Test
    void aRefusalTheHandlerThrowsComesBackAsTheStoresException() {
        String key = unique("thrown");
        FencingToken newer = FencingToken.of("handler-lock", 7);
        call(fromContext(), ItemsServer.WRITE, newer, message("STRICT", key, "v"));
        int reached = ItemsServer.FENCED_CALLS.get();

        // the raw answer: the interceptor closed the call the handler threw out of
        assertThatThrownBy(() -> call(sending(TokenHeader.format(newer)), ItemsServer.WRITE, null,
                message("STRICT", key, "again"))).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getTrailers().get(FencingGrpc.REFUSAL_KEY))
                            .isEqualTo(TokenRefusal.header(StaleTokenException.of(key, newer, 7, Policy.STRICT)).orElseThrow());
                });
        assertThat(ItemsServer.FENCED_CALLS.get()).as("the handler ran: its store refused").isEqualTo(reached + 1);

        assertThatThrownBy(() -> FencingGrpc.call(() -> call(fromContext(), ItemsServer.DELETE, newer,
                message("STRICT", key)))).isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(newer);
                    assertThat(e.highWaterMark()).isEqualTo(7);
                    assertThat(e.key()).isEqualTo(key);
                    assertThat(e.policy()).isEqualTo(Policy.STRICT);
                });
        FencingToken foreign = FencingToken.of("another-lock", 8);
        assertThatThrownBy(() -> FencingGrpc.call(() -> call(fromContext(), ItemsServer.WRITE, foreign,
                message("STRICT", key, "w")))).isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(foreign);
                    assertThat(e.boundResource()).isEqualTo("handler-lock");
                    assertThat(e.key()).isEqualTo(key);
                });
    }

    @Test
    void aRefusalTheHandlerAnswersWithOnErrorComesBackAsTheStoresException() {
        String key = unique("on-error");
        FencingToken newer = FencingToken.of("cas-lock", 3);
        call(fromContext(), ItemsServer.WRITE, newer, message("MONOTONIC", key, "v"));
        FencingToken stale = FencingToken.of("cas-lock", 2);

        // Cas catches the store's exception and answers responseObserver.onError(FencingGrpc.refusal(e))
        assertThatThrownBy(() -> FencingGrpc.call(() -> call(fromContext(), ItemsServer.CAS, stale,
                message("MONOTONIC", key, "0:x")))).isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(stale);
                    assertThat(e.highWaterMark()).isEqualTo(3);
                    assertThat(e.key()).isEqualTo(key);
                    assertThat(e.policy()).isEqualTo(Policy.MONOTONIC);
                });
    }

    @Test
    void theClientInterceptorGivesTheRefusalStatusTheStoresExceptionAsItsCause() {
        String key = unique("cause");
        FencingToken newer = FencingToken.of("cause-lock", 3);
        call(fromContext(), ItemsServer.WRITE, newer, message("MONOTONIC", key, "v"));
        FencingToken stale = FencingToken.of("cause-lock", 1);

        assertThatThrownBy(() -> call(fromContext(), ItemsServer.WRITE, stale, message("MONOTONIC", key, "w")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getCause()).isInstanceOf(StaleTokenException.class);
                    assertThat(TokenRefusal.find(e)).isSameAs(e.getCause());
                    assertThat(FencingGrpc.refusalOf(e)).containsSame((StaleTokenException) e.getCause());
                });
        // without the interceptor, refusalOf reads the trailer
        assertThatThrownBy(() -> call(sending(TokenHeader.format(stale)), ItemsServer.WRITE, null,
                message("MONOTONIC", key, "w"))).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getCause()).isNull();
                    assertThat(FencingGrpc.refusalOf(e)).get().isInstanceOfSatisfying(StaleTokenException.class,
                            stale2 -> assertThat(stale2.highWaterMark()).isEqualTo(3));
                });
    }

    @Test
    @SuppressWarnings("try") // the scope is used by the interceptor, not the block
    void theCallOptionWinsOverTheFixedTokenWhichWinsOverTheContext() {
        FencingToken bound = FencingToken.of("option-lock", 1);
        FencingToken fixed = FencingToken.of("option-lock", 2);
        FencingToken option = FencingToken.of("option-lock", 3);
        Channel withFixed = ClientInterceptors.intercept(RAW, FencingClientInterceptor.of(fixed));
        try (FencingContext.Scope scope = FencingContext.bind(bound)) {
            assertThat(call(fromContext(), ItemsServer.ECHO, null, "")).isEqualTo(TokenHeader.format(bound));
            assertThat(call(fromContext(), ItemsServer.ECHO, option, "")).isEqualTo(TokenHeader.format(option));
            assertThat(call(withFixed, ItemsServer.ECHO, null, "")).isEqualTo(TokenHeader.format(fixed));
            assertThat(call(withFixed, ItemsServer.ECHO, option, "")).isEqualTo(TokenHeader.format(option));
        }
        assertThat(call(fromContext(), ItemsServer.ECHO, null, "")).isEqualTo("none");
    }

    @Test
    void aValueAlreadyInTheHeadersIsSentAsItIs() {
        FencingToken option = FencingToken.of("headers-lock", 3);
        // the last interceptor runs first: the attached value is there when the fencing one starts the call
        Channel channel = ClientInterceptors.intercept(RAW, FencingClientInterceptor.fromContext(),
                MetadataUtils.newAttachHeadersInterceptor(headersWith("11; lock=headers-lock")));
        assertThat(call(channel, ItemsServer.ECHO, option, "")).isEqualTo("11; lock=headers-lock");
    }

    @Test
    void twoValuesAreMalformedAndNoTokenIsMissingAndTheHandlerRunsForNeither() {
        String key = unique("refused");
        int reached = ItemsServer.FENCED_CALLS.get();
        assertThatThrownBy(() -> call(sending("5; lock=x", "5; lock=x"), ItemsServer.WRITE, null,
                message("MONOTONIC", key, "v"))).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains(TokenHeader.GRPC_KEY + " was sent 2 times");
                    assertThat(e.getTrailers().containsKey(FencingGrpc.REFUSAL_KEY)).isFalse();
                });
        assertThatThrownBy(() -> call(RAW, ItemsServer.WRITE, null, message("MONOTONIC", key, "v")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription())
                            .isEqualTo(new MissingTokenException(ItemsServer.WRITE.getFullMethodName()).getMessage());
                    assertThat(FencingGrpc.refusalOf(e)).isEmpty();
                });
        assertThat(ItemsServer.FENCED_CALLS.get()).as("calls that reached a fenced handler").isEqualTo(reached);
    }

    @Test
    void callPassesAnyOtherStatusOnAsItIs() {
        StatusRuntimeException other = Status.NOT_FOUND.withDescription("no such item").asRuntimeException();
        assertThatThrownBy(() -> FencingGrpc.call(() -> {
            throw other;
        })).isSameAs(other);
        assertThat(FencingGrpc.refusalOf(other)).isEmpty();
    }

    @Test
    void theFaultLosesAWritesReplyAfterTheHandlerActedAndNeverAReadsReply() {
        String key = unique("lost");
        FencingToken token = FencingToken.of("lost-lock", 4);
        try (ReplyLosingProxy proxy = ReplyLosingProxy.inFrontOf(ItemsServer.port());
                GrpcItemsClient client = new GrpcItemsClient(proxy.port(), Policy.MONOTONIC);
                GrpcItemsClient direct = new GrpcItemsClient(ItemsServer.port(), Policy.MONOTONIC)) {
            client.write(token, key, "before");
            AtomicBoolean windowRan = new AtomicBoolean();
            proxy.loseNextWriteReply(() -> windowRan.set(true));

            assertThat(client.read(key)).as("a read through the armed proxy").contains(new StoredValue(key, "before", 4));
            assertThat(proxy.lost()).isZero();
            assertThatThrownBy(() -> client.write(token, key, "after"))
                    .isInstanceOfSatisfying(WriteOutcomeUnknownException.class, e -> {
                        assertThat(e.key()).isEqualTo(key);
                        assertThat(e.getCause()).isInstanceOfSatisfying(StatusRuntimeException.class,
                                cause -> assertThat(cause.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
                    });
            assertThat(proxy.lost()).isEqualTo(1);
            assertThat(windowRan).isTrue();
            assertThat(direct.read(key)).as("the write landed").contains(new StoredValue(key, "after", 4));
            assertThat(client.read(key)).as("the client reconnects").contains(new StoredValue(key, "after", 4));
        }
    }

    /**
     * The longest lock and key in a script of three UTF-8 bytes a character: the trailer alone is
     * over 4 KiB, and the message, percent-encoded in the status, would take the trailers past the
     * client's default 8 KiB (INTERNAL: http2 exception) if it were not cut.
     */
    @Test
    void aRefusalOfTheLongestNamesFitsTheClientsTrailerLimit() {
        String key = unique("k") + "中".repeat(240);
        FencingToken newer = FencingToken.of("中".repeat(256), 7);
        FencingToken stale = FencingToken.of("中".repeat(256), 6);
        GrpcItemsClient client = new GrpcItemsClient(ItemsServer.port(), Policy.MONOTONIC);
        try (client) {
            client.write(newer, key, "v");
            assertThatThrownBy(() -> client.write(stale, key, "w")).isInstanceOfSatisfying(StaleTokenException.class, e -> {
                assertThat(e.key()).isEqualTo(key);
                assertThat(e.presented()).isEqualTo(stale);
                assertThat(e.highWaterMark()).isEqualTo(7);
            });
        }
    }

    private static Metadata headersWith(String value) {
        Metadata headers = new Metadata();
        headers.put(FencingGrpc.TOKEN_KEY, value);
        return headers;
    }

    /** "Retry later" and "may have landed" cross as ABORTED and UNKNOWN with the trailer, and come back as themselves. */
    @Test
    void aStoresLostRacesAndUnknownOutcomeCrossAsAbortedAndUnknown() {
        var busy = dev.fencing.core.ConcurrentUpdateException.gaveUp("busy", 4);
        StatusRuntimeException aborted = FencingGrpc.refusal(busy);
        assertThat(aborted.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(FencingGrpc.fromTrailers(aborted.getStatus(), aborted.getTrailers())).hasValueSatisfying(back ->
                assertThat(back).isInstanceOfSatisfying(dev.fencing.core.ConcurrentUpdateException.class,
                        e -> assertThat(e.attempts()).isEqualTo(4)));
        WriteOutcomeUnknownException lost = WriteOutcomeUnknownException.of("k", new java.io.IOException("reset"));
        StatusRuntimeException unknown = FencingGrpc.refusal(lost);
        assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(FencingGrpc.fromTrailers(unknown.getStatus(), unknown.getTrailers())).hasValueSatisfying(back ->
                assertThat(back).isInstanceOf(WriteOutcomeUnknownException.class));
        assertThat(FencingGrpc.fromTrailers(Status.UNKNOWN, new Metadata())).isEmpty();
    }

    /** The caller's listener sees the refusal its interceptor turned back into the store's exception. */
    @Test
    void aRefusalReachesTheCallersListener() {
        String lock = unique("listened");
        FencingGrpc.call(() -> call(fromContext(), ItemsServer.GATED_ECHO, FencingToken.of(lock, 3), ""));
        dev.fencing.testkit.RecordingListener listener = new dev.fencing.testkit.RecordingListener();
        Channel listened = ClientInterceptors.intercept(RAW, FencingClientInterceptor.fromContext().listener(listener));

        assertThatThrownBy(() -> FencingGrpc.call(() -> call(listened, ItemsServer.GATED_ECHO, FencingToken.of(lock, 2),
                ""))).isInstanceOf(StaleTokenException.class);
        assertThat(listener.staleRejected()).isEqualTo(1);
    }

    /**
     * Two workers call the same service: one configured with the declared lock, one with a typo.
     * The typo'd worker leads its own lock alone, so without the declaration its writes alternate
     * with the real leader's; with it, every one is refused before the gate creates a mark.
     */
    @Test
    void aTokenOfAnUndeclaredLockIsRefusedAsForeignBeforeTheGate() {
        String key = unique("declared-item");
        FencingToken leader = FencingToken.of("billing-scheduler", 7);
        FencingToken typo = FencingToken.of("billing-schedular", 1);
        Channel first = ClientInterceptors.intercept(RAW, FencingClientInterceptor.of(leader));
        Channel second = ClientInterceptors.intercept(RAW, FencingClientInterceptor.of(typo));
        int told = ItemsServer.DECLARED_LISTENER.writeFailures().size();

        FencingGrpc.call(() -> call(first, ItemsServer.DECLARED_WRITE, null, message(key, "from the leader")));
        assertThatThrownBy(() -> FencingGrpc.call(() -> call(second, ItemsServer.DECLARED_WRITE, null,
                message(key, "from the typo")))).isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(typo);
                    assertThat(e.boundResource()).isEqualTo("billing-scheduler");
                    assertThat(e.key()).isEqualTo(ItemsServer.DECLARED_WRITE.getFullMethodName());
                });

        assertThat(ItemsServer.stored(key)).as("what the store holds").contains(
                new StoredValue(key, "from the leader", 7));
        assertThat(ItemsServer.GATE_MARKS.highWaterMark(dev.fencing.propagation.TokenGate.keyOf("billing-schedular")))
                .as("the gate's mark of the typo'd lock").isEmpty();
        assertThat(ItemsServer.DECLARED_LISTENER.writeFailures()).as("refusals told to the listener")
                .hasSize(told + 1).last().isInstanceOf(ForeignTokenException.class);
    }
}
