package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract of a transport that carries the fencing token to a downstream service (HTTP, gRPC):
 * a service whose handlers write to a fenced store with the caller's token is itself a fenced
 * store. Every case of {@link FencedStoreContract} runs through the transport (a client
 * {@link FencedStore} calling the service), and the cases here add what crosses the wire: the
 * zombie refused downstream, the token of the lease in scope attached and nothing outside one,
 * malformed and missing tokens refused before the handler runs, and lock names of every shape
 * arriving unchanged.
 *
 * <p>A transport module extends this class and implements {@link #downstream(Policy)}; the
 * fenced-store cases call {@link #createStore} which defaults to the downstream's
 * {@link Downstream#client()}.
 */
public abstract class PropagationContract extends FencedStoreContract {

    private static final LeaseOptions SHORT = LeaseOptions.builder().ttl(Duration.ofMillis(200))
            .waitTimeout(Duration.ofSeconds(5)).build();

    /** What the service answered to a hand-made request. */
    public enum Answer {
        /** The write was carried out. */
        ACCEPTED,
        /** Refused as stale (HTTP 409 / gRPC FAILED_PRECONDITION with the refusal). */
        STALE,
        /** Refused as a token of another lock (HTTP 409 / gRPC FAILED_PRECONDITION with the refusal). */
        FOREIGN,
        /** Refused as malformed (HTTP 400 / gRPC INVALID_ARGUMENT). */
        MALFORMED,
        /** Refused as missing (HTTP 428 / gRPC FAILED_PRECONDITION). */
        MISSING
    }

    /**
     * A service reached over the transport under test, whose write handlers write to a store of
     * one server (shared by every policy's downstream) with the token the request carried, and
     * answer the store's refusals the transport's way.
     */
    public interface Downstream {

        /**
         * A new client, with its own connection, whose operations call the service: writes send
         * their token explicitly, and a refusal comes back as the store's exception.
         */
        FencedStore client();

        /**
         * Sends a write of {@code value} under {@code key} with {@code tokenHeader} as the token's
         * wire value, as it is ({@code null}: no token at all), and tells what the service answered.
         */
        Answer rawWrite(@Nullable String tokenHeader, String key, String value);

        /**
         * Calls the service with the transport's implicit client (the one that attaches the token
         * bound to the calling thread), inside a scope binding {@code lease} ({@code null}: outside
         * any scope), and returns the token the service's handler was given.
         */
        Optional<FencingToken> echoWithin(@Nullable Lease lease);

        /**
         * Writes through the service's handler that makes its store call on another thread and
         * joins it, so a refusal leaves the handler wrapped (a {@code CompletionException});
         * {@code null} if the test service has no such handler (the case is then skipped, saying so).
         */
        default @Nullable Writer wrappingWriter() {
            return null;
        }

        /**
         * Writes through the service's handler behind a lock declaration that allows
         * {@link #DECLARED_LOCK} only; {@code null} if the test service declares none.
         */
        default @Nullable Writer declaredWriter() {
            return null;
        }
    }

    /** The one lock a {@link Downstream#declaredWriter()} service declares. */
    public static final String DECLARED_LOCK = "billing-scheduler";

    /** A write sent to one handler of the service, with its token explicitly; a refusal comes back as the store's exception. */
    @FunctionalInterface
    public interface Writer {
        /** Writes {@code value} under {@code key} with {@code token}. */
        void write(FencingToken token, String key, String value);
    }

    /** The service applying {@code policy}; tests call it often, so start each once and reuse it. */
    protected abstract Downstream downstream(Policy policy);

    @Override
    protected FencedStore createStore(Policy policy) {
        return downstream(policy).client();
    }

    /**
     * The article's zombie, across a service boundary: holder A pauses past its TTL, B acquires
     * and writes through its own client; A's write through its client is refused downstream with
     * the mark of B's token, and B's value is kept.
     */
    @Test
    void aZombiesCallIsRefusedDownstreamAndTheNewerHoldersIsKept() throws Exception {
        InMemoryLockServer server = new InMemoryLockServer();
        try (InMemoryLockProvider a = InMemoryLockProvider.builder().server(server).build();
                InMemoryLockProvider b = InMemoryLockProvider.builder().server(server).build()) {
            String lock = key("zombie-lock");
            String key = key("order");
            FencedStore aClient = downstream(Policy.MONOTONIC).client();
            FencedStore bClient = downstream(Policy.MONOTONIC).client();
            Lease zombie = a.acquire(lock, SHORT);
            aClient.write(zombie.token(), key, "from A, before its pause");
            await().atMost(Duration.ofSeconds(5)).until(() -> !zombie.isValid());
            try (Lease newer = b.acquire(lock, SHORT)) {
                bClient.write(newer.token(), key, "from B");

                assertThatThrownBy(() -> aClient.write(zombie.token(), key, "from A, after its pause"))
                        .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                            assertThat(e.presented()).isEqualTo(zombie.token());
                            assertThat(e.highWaterMark()).isEqualTo(newer.token().value());
                            assertThat(e.key()).isEqualTo(key);
                            assertThat(e.policy()).isEqualTo(Policy.MONOTONIC);
                        });
                assertThat(bClient.read(key)).contains(new StoredValue(key, "from B", newer.token().value()));
            }
        }
    }

    /** The implicit client attaches the token of the lease in scope, and nothing outside a scope. */
    @Test
    void theImplicitClientSendsTheTokenOfTheLeaseInScopeAndNothingOutsideOne() throws Exception {
        Downstream downstream = downstream(Policy.MONOTONIC);
        assertThat(downstream.echoWithin(null)).as("outside any scope").isEmpty();
        try (InMemoryLockProvider locks = InMemoryLockProvider.create();
                Lease lease = locks.acquire(key("echo-lock"), LeaseOptions.ofTtl(Duration.ofSeconds(30)))) {
            assertThat(downstream.echoWithin(lease)).contains(lease.token());
        }
        assertThat(downstream.echoWithin(null)).as("after the scope closed").isEmpty();
    }

    /** A hand-made, well-formed token is accepted: the wire form is the documented one. */
    @Test
    void aHandWrittenTokenInTheDocumentedFormIsAccepted() {
        Downstream downstream = downstream(Policy.MONOTONIC);
        String key = key("hand-written");
        assertThat(downstream.rawWrite("7; lock=orders%2F7", key, "v")).isEqualTo(Answer.ACCEPTED);
        assertThat(store.read(key)).contains(new StoredValue(key, "v", 7));
        assertThat(downstream.rawWrite("6 ;  lock=orders%2f7", key, "older")).isEqualTo(Answer.STALE);
        assertThat(downstream.rawWrite("7; lock=Orders%2F7", key, "other lock")).isEqualTo(Answer.FOREIGN);
        assertThat(store.read(key)).contains(new StoredValue(key, "v", 7));
    }

    /**
     * Why the transport cannot carry a tab in the token's value, or {@code null} (the default) if
     * it can: then a tab in the optional whitespace is accepted like a space (RFC 9110 OWS). gRPC
     * overrides it: its ASCII metadata values are printable ASCII only.
     */
    protected @Nullable String whyNoTabsInTokenValues() {
        return null;
    }

    /** A tab in the optional whitespace around ';' is whitespace, where the transport can carry one. */
    @Test
    void aTabInTheOptionalWhitespaceIsAccepted() {
        String why = whyNoTabsInTokenValues();
        if (why != null) {
            Skip.because(getClass().getSimpleName() + " cannot send a tab in a token value: " + why);
        }
        Downstream downstream = downstream(Policy.MONOTONIC);
        String key = key("tab");
        assertThat(downstream.rawWrite("7\t;\tlock=orders%2F7\t", key, "v")).isEqualTo(Answer.ACCEPTED);
        assertThat(downstream.rawWrite("6 ;\tlock=orders%2f7", key, "older")).isEqualTo(Answer.STALE);
        assertThat(store.read(key)).contains(new StoredValue(key, "v", 7));
    }

    static Stream<Arguments> malformedTokens() {
        return Stream.of(Arguments.of(""), Arguments.of("5"), Arguments.of("abc; lock=x"), Arguments.of("-5; lock=x"),
                Arguments.of("+5; lock=x"), Arguments.of("0; lock=x"), Arguments.of("05; lock=x"),
                Arguments.of("9223372036854775808; lock=x"), Arguments.of("99999999999999999999; lock=x"),
                Arguments.of("5.0; lock=x"), Arguments.of("5; lock="), Arguments.of("5; lock=a b"),
                Arguments.of("5; lock=%zz"), Arguments.of("5; lock=%4"), Arguments.of("5; lock=%C3%28"),
                Arguments.of("5; lock=%00"), Arguments.of("5; lock=x; extra=y"), Arguments.of("5; name=x"),
                Arguments.of("5; lock=x, 6; lock=x"), Arguments.of("5; lock=%ED%A0%80"),
                Arguments.of("5; lock=" + "a".repeat(5000)), Arguments.of("5; lock=" + "a".repeat(257)));
    }

    /** A malformed token is refused before the handler runs: nothing is written, no mark is set. */
    @ParameterizedTest
    @MethodSource("malformedTokens")
    void aMalformedTokenIsRefusedAndNothingIsWritten(String header) {
        String key = key("malformed");
        assertThat(downstream(Policy.MONOTONIC).rawWrite(header, key, "v")).isEqualTo(Answer.MALFORMED);
        assertThat(store.read(key)).isEmpty();
        assertThat(store.highWaterMark(key)).isEmpty();
    }

    /** A write without a token is refused as missing, not carried out unfenced. */
    @Test
    void aWriteWithoutATokenIsRefusedAndNothingIsWritten() {
        String key = key("missing");
        assertThat(downstream(Policy.MONOTONIC).rawWrite(null, key, "v")).isEqualTo(Answer.MISSING);
        assertThat(store.read(key)).isEmpty();
        assertThat(store.highWaterMark(key)).isEmpty();
    }

    /** The refusal the client rebuilds names the service's policy: STRICT refuses an equal token. */
    @Test
    void aStrictServicesRefusalOfAnEqualTokenNamesItsPolicy() {
        FencedStore strict = downstream(Policy.STRICT).client();
        String key = key("strict");
        strict.write(token(3), key, "first");
        assertThatThrownBy(() -> strict.write(token(3), key, "again"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.policy()).isEqualTo(Policy.STRICT);
                    assertThat(e.highWaterMark()).isEqualTo(3);
                    assertThat(e.presented()).isEqualTo(token(3));
                });
    }

    /**
     * Lock names of every shape the toolkit accepts cross the wire unchanged, and names that an
     * encoding could confuse stay different locks: one spelled like another's escape, case,
     * trailing space, non-ASCII, the header's own syntax.
     */
    @ParameterizedTest
    @ValueSource(strings = {"A", "%41", "a", "A ", " A", "a/b", "a%2Fb", "ключ", "😀", "lock=1; x", "1; lock=A", "é",
        "e\u0301", "a+b", "a b"})
    void lockNamesOfEveryShapeArriveUnchangedAndStayApart(String lock) {
        FencedStore client = downstream(Policy.MONOTONIC).client();
        String key = key("shape");
        FencingToken token = FencingToken.of(lock, 5);
        client.write(token, key, "v");
        assertThat(client.read(key)).contains(new StoredValue(key, "v", 5));
        FencingToken lookalike = FencingToken.of("A".equals(lock) ? "%41" : "A", 6);
        assertThatThrownBy(() -> client.write(lookalike, key, "w"))
                .isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(lookalike);
                    assertThat(e.boundResource()).isEqualTo(lock);
                });
        assertThatThrownBy(() -> client.write(FencingToken.of(lock, 4), key, "older"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.presented().resource()).isEqualTo(lock));
    }

    /**
     * A handler whose store call reaches the transport wrapped (work joined from another thread):
     * the caller still gets the store's own exception, not a plain server error it would treat as
     * "may have landed" and retry.
     */
    @Test
    void aRefusalWrappedByTheHandlersPlumbingReachesTheCallerAsItself() {
        Writer wrapping = downstream(Policy.MONOTONIC).wrappingWriter();
        if (wrapping == null) {
            Skip.because(getClass().getSimpleName() + "'s service has no handler that joins its store call from another thread");
            return;
        }
        String key = key("wrapped");
        String lock = key("wrapped-lock");
        wrapping.write(FencingToken.of(lock, 5), key, "newer");
        assertThatThrownBy(() -> wrapping.write(FencingToken.of(lock, 4), key, "stale"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(FencingToken.of(lock, 4));
                    assertThat(e.highWaterMark()).isEqualTo(5);
                });
        assertThat(store.read(key)).contains(new StoredValue(key, "newer", 5));
    }

    /**
     * The typo'd worker: a second caller configured with a misspelled lock leads it alone. A
     * service that declared its lock refuses that caller's token as foreign before the handler
     * runs, and keeps the leader's value.
     */
    @Test
    void aTokenOfALockTheServiceDidNotDeclareIsRefusedAsForeign() {
        Writer declared = downstream(Policy.MONOTONIC).declaredWriter();
        if (declared == null) {
            Skip.because(getClass().getSimpleName() + "'s service declares no locks");
            return;
        }
        String key = key("declared");
        FencingToken leader = FencingToken.of(DECLARED_LOCK, 7);
        FencingToken typo = FencingToken.of(DECLARED_LOCK.replace("er", "ar"), 8);
        declared.write(leader, key, "from the leader");
        assertThatThrownBy(() -> declared.write(typo, key, "from the typo"))
                .isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(typo);
                    assertThat(e.boundResource()).isEqualTo(DECLARED_LOCK);
                });
        assertThat(store.read(key)).contains(new StoredValue(key, "from the leader", 7));
    }
}
