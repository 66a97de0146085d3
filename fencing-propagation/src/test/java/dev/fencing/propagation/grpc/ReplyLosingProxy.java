package dev.fencing.propagation.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Loses a write's reply after the service carried the write out, for the contract's lost-reply
 * cases. The testkit's proxy cannot tell an HTTP/2 reply from a PING, so the fault sits on both
 * sides: clients reach the server through this TCP proxy, and the server's interceptor
 * ({@link #losingRepliesOf}) recognises a call that came through an armed proxy by its remote
 * address. It lets the handler act, withholds every byte of its answer, runs the window, then
 * resets both halves of that TCP connection: the client sees its connection die under the call
 * ({@code UNAVAILABLE} with the I/O error), exactly as if the reply had been lost on the way, and
 * the server sees the call cancelled by the peer.
 */
final class ReplyLosingProxy implements AutoCloseable {

    private static final Set<ReplyLosingProxy> OPEN = new CopyOnWriteArraySet<>();

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "reply-losing-proxy");
        t.setDaemon(true);
        return t;
    });
    /** The client-side socket of each connection, by the port of its upstream socket (the server's remote port). */
    private final Map<Integer, Socket[]> connections = new ConcurrentHashMap<>();
    private final AtomicReference<@Nullable Runnable> armed = new AtomicReference<>();
    private final AtomicInteger lost = new AtomicInteger();

    private ReplyLosingProxy(int port) {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        threads.execute(this::accept);
        OPEN.add(this);
    }

    /** A proxy in front of the server on 127.0.0.1:{@code port}. */
    static ReplyLosingProxy inFrontOf(int port) {
        return new ReplyLosingProxy(port);
    }

    /** The port clients connect to. */
    int port() {
        return listener.getLocalPort();
    }

    /** The reply to the next write through this proxy is lost; {@code inTheWindow} runs before the client learns it. */
    void loseNextWriteReply(Runnable inTheWindow) {
        armed.set(inTheWindow);
    }

    /** How many replies were lost so far. */
    int lost() {
        return lost.get();
    }

    @Override
    public void close() {
        OPEN.remove(this);
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        connections.keySet().forEach(this::reset);
        threads.shutdownNow();
    }

    /**
     * The server side of the fault, for the methods in {@code writes}: a call that came through an
     * armed proxy has its answer withheld and its connection reset once the handler closed it.
     */
    static ServerInterceptor losingRepliesOf(Set<MethodDescriptor<?, ?>> writes) {
        Set<String> names = new java.util.HashSet<>();
        writes.forEach(m -> names.add(m.getFullMethodName()));
        return new ServerInterceptor() {
            @Override
            public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                    ServerCallHandler<ReqT, RespT> next) {
                if (names.contains(call.getMethodDescriptor().getFullMethodName())) {
                    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
                    for (ReplyLosingProxy proxy : OPEN) {
                        if (remote instanceof InetSocketAddress address && proxy.connections.containsKey(address.getPort())) {
                            Runnable window = proxy.armed.getAndSet(null);
                            if (window != null) {
                                return next.startCall(proxy.losing(call, address.getPort(), window), headers);
                            }
                        }
                    }
                }
                return next.startCall(call, headers);
            }
        };
    }

    private <ReqT, RespT> ServerCall<ReqT, RespT> losing(ServerCall<ReqT, RespT> call, int port, Runnable window) {
        return new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendHeaders(Metadata headers) {
                // withheld: the reply is lost
            }

            @Override
            public void sendMessage(RespT message) {
                // withheld: the reply is lost
            }

            @Override
            public void close(Status status, Metadata trailers) {
                lost.incrementAndGet();
                try {
                    window.run();
                } finally {
                    // the call is not closed: the reset connection cancels it on the server as well
                    reset(port);
                }
            }
        };
    }

    private void accept() {
        while (!listener.isClosed()) {
            Socket client;
            Socket upstream;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                upstream = new Socket();
                upstream.connect(target);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(client);
                continue;
            }
            int port = upstream.getLocalPort();
            connections.put(port, new Socket[] {client, upstream});
            threads.execute(() -> pump(client, upstream, port));
            threads.execute(() -> pump(upstream, client, port));
        }
    }

    private void pump(Socket from, Socket to, int port) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away: the other goes too
        } finally {
            Socket[] pair = connections.remove(port);
            closeQuietly(from);
            closeQuietly(to);
            if (pair != null) {
                closeQuietly(pair[0]);
                closeQuietly(pair[1]);
            }
        }
    }

    /** Resets both halves of the connection whose upstream socket has {@code port}: RST, not FIN. */
    private void reset(int port) {
        Socket[] pair = connections.remove(port);
        if (pair == null) {
            return;
        }
        for (Socket socket : pair) {
            try {
                socket.setSoLinger(true, 0);
            } catch (IOException e) {
                // closing anyway
            }
            closeQuietly(socket);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
