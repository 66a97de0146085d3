package dev.fencing.propagation.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.testkit.InMemoryFencedStore;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * An adversary's twin of GrpcAdversaryTest's relayed lost race, where the handler's own call
 * elsewhere goes through a channel without FencingClientInterceptor (a call that carries no token:
 * ItemsServer's open Busy method). The downstream's "concurrent" trailer must not be relayed as
 * this call's own: the caller's client would throw ConcurrentUpdateException ("nothing written,
 * retry later") for a write that landed.
 */
class RelayWithoutInterceptorAdversaryTest {

    @Test
    void aLostRaceOfTheHandlersOwnPlainCallIsNotTheCallers() throws Exception {
        FencedStore store = InMemoryFencedStore.create();
        MethodDescriptor<String, String> relay = MethodDescriptor.newBuilder(ItemsServer.UTF8, ItemsServer.UTF8)
                .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("adv.Relay/Write").build();
        ServerServiceDefinition service = ServerServiceDefinition.builder("adv.Relay")
                .addMethod(relay, ServerCalls.asyncUnaryCall((String key, io.grpc.stub.StreamObserver<String> response) -> {
                    store.write(FencingGrpc.currentToken().orElseThrow(), key, "mine");
                    ManagedChannel plain = Grpc.newChannelBuilderForAddress("127.0.0.1", ItemsServer.port(),
                            InsecureChannelCredentials.create()).build();
                    try {
                        ClientCalls.blockingUnaryCall(plain, ItemsServer.BUSY, CallOptions.DEFAULT, "x");
                        response.onNext("");
                        response.onCompleted();
                    } catch (StatusRuntimeException e) {
                        response.onError(e); // the common idiom: pass the downstream's failure on
                    } finally {
                        plain.shutdownNow();
                    }
                })).build();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerInterceptors.intercept(service, FencingServerInterceptor.builder().requireToken().build()))
                .build().start();
        ManagedChannel raw = Grpc.newChannelBuilderForAddress("127.0.0.1", server.getPort(),
                InsecureChannelCredentials.create()).build();
        try {
            String key = "adv-relay-" + UUID.randomUUID().toString().substring(0, 8);
            FencingToken mine = FencingToken.of(key + "-caller", 1);
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> FencingGrpc.call(() ->
                    ClientCalls.blockingUnaryCall(ClientInterceptors.intercept(raw, FencingClientInterceptor.of(mine)),
                            relay, CallOptions.DEFAULT, key)));
            assertThat(store.read(key)).as("the caller's write landed").isPresent();
            assertThat(thrown).as("the caller's write did not lose a race")
                    .isNotNull().isNotInstanceOf(dev.fencing.core.ConcurrentUpdateException.class);
        } finally {
            raw.shutdownNow();
            server.shutdownNow();
        }
    }
}
