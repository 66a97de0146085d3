package dev.fencing.propagation.grpc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Attacks on the gRPC transport, against {@link ItemsServer}. */
class GrpcAdversaryTest {

    /**
     * A foreign-token refusal names three names (presented lock, key, bound lock): with the longest
     * names of a three-byte script the refusal trailer alone is about 7 KiB, and with the cut
     * description the trailers pass the client's default 8 KiB. The caller must still get
     * {@link ForeignTokenException}, not an INTERNAL / RESOURCE_EXHAUSTED status.
     */
    @Test
    void aForeignRefusalOfTheLongestNamesFitsTheClientsTrailerLimit() {
        String tag = UUID.randomUUID().toString().substring(0, 8);
        String key = tag + "中".repeat(248);
        FencingToken owner = FencingToken.of(tag + "中".repeat(248), 7);
        FencingToken other = FencingToken.of(tag + "国".repeat(248), 8);
        try (GrpcItemsClient client = new GrpcItemsClient(ItemsServer.port(), Policy.MONOTONIC)) {
            client.write(owner, key, "v");
            assertThatThrownBy(() -> client.write(other, key, "w")).isInstanceOf(ForeignTokenException.class);
        }
    }

    /**
     * A service relays (by hand, or an older version) a stale refusal of a token the caller never
     * sent. The interceptor rightly leaves it out of the status's cause, but FencingGrpc.call then
     * rebuilds it from the trailer anyway, and the caller gets StaleTokenException ("a newer holder
     * wrote there: stop") for a token of some other lock: the interceptor's check is undone.
     */
    @Test
    void fencingGrpcCallDoesNotRebuildARefusalTheInterceptorFoundNotToBeTheCallers() {
        io.grpc.ManagedChannel raw = io.grpc.Grpc.newChannelBuilderForAddress("127.0.0.1", ItemsServer.port(),
                io.grpc.InsecureChannelCredentials.create()).build();
        try {
            io.grpc.Channel channel = io.grpc.ClientInterceptors.intercept(raw,
                    dev.fencing.propagation.grpc.FencingClientInterceptor.of(FencingToken.of("mine", 5)));
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> FencingGrpc.call(() ->
                    io.grpc.stub.ClientCalls.blockingUnaryCall(channel, ItemsServer.RELAY_BY_HAND,
                            io.grpc.CallOptions.DEFAULT, "x")));
            org.assertj.core.api.Assertions.assertThat(thrown).as("a refusal of a token this call never sent")
                    .isInstanceOf(io.grpc.StatusRuntimeException.class)
                    .isNotInstanceOf(dev.fencing.core.StaleTokenException.class);
        } finally {
            raw.shutdownNow();
        }
    }

    /**
     * The gRPC relay of a lost race: a handler writes with the caller's token (landed), its own
     * call elsewhere answers ABORTED with the concurrent-update trailer, and the handler passes that
     * status on with {@code responseObserver.onError(e)}, the common idiom. The server interceptor
     * lets the close through with the downstream's trailer, and the caller gets
     * ConcurrentUpdateException ("nothing written, retry later") for a write that landed.
     */
    @Test
    void aLostRaceOfTheHandlersOwnCallPassedOnWithOnErrorIsNotTheCallers() {
        String key = "grpc-relay-busy-" + UUID.randomUUID().toString().substring(0, 8);
        FencingToken mine = FencingToken.of(key + "-caller", 1);
        io.grpc.ManagedChannel raw = io.grpc.Grpc.newChannelBuilderForAddress("127.0.0.1", ItemsServer.port(),
                io.grpc.InsecureChannelCredentials.create()).build();
        try (GrpcItemsClient store = new GrpcItemsClient(ItemsServer.port(), Policy.MONOTONIC)) {
            io.grpc.Channel channel = io.grpc.ClientInterceptors.intercept(raw, FencingClientInterceptor.of(mine));
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> FencingGrpc.call(() ->
                    io.grpc.stub.ClientCalls.blockingUnaryCall(channel, ItemsServer.RELAY_BUSY,
                            io.grpc.CallOptions.DEFAULT, key)));
            org.assertj.core.api.Assertions.assertThat(store.read(key)).as("the caller's write landed")
                    .contains(new dev.fencing.core.StoredValue(key, "mine", 1));
            org.assertj.core.api.Assertions.assertThat(thrown).as("the caller's write did not lose a race")
                    .isNotNull().isNotInstanceOf(dev.fencing.core.ConcurrentUpdateException.class);
        } finally {
            raw.shutdownNow();
        }
    }
}
