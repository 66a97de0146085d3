package dev.fencing.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * A gRPC interceptor on the client's channel that, while holding, lets every {@code KV/Txn}
 * request reach etcd (which applies it) and never hands its reply to the client: "the
 * transaction was applied but its reply was lost". Other calls (lease grant, revoke) pass.
 */
final class HoldTxnReplies implements ClientInterceptor {

    private volatile boolean holding;

    void hold() {
        holding = true;
    }

    void pass() {
        holding = false;
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
            CallOptions callOptions, Channel next) {
        ClientCall<ReqT, RespT> call = next.newCall(method, callOptions);
        if (!holding || !method.getFullMethodName().endsWith("KV/Txn")) {
            return call;
        }
        return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
            @Override
            public void start(Listener<RespT> responseListener, Metadata headers) {
                super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(responseListener) {
                    @Override
                    public void onMessage(RespT message) {
                        // lost on the way back
                    }

                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        // never told: the client gives up on its own timeout
                    }
                }, headers);
            }
        };
    }
}
