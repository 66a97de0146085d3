package dev.fencing.etcd;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * One TLS handshake to an endpoint, with the client's settings and host-name check, to tell why a
 * first request over TLS got no answer: gRPC retries a failed handshake without saying so.
 */
final class TlsProbe {

    /** How long the server may take to refuse this client's certificate after the handshake (TLS 1.3). */
    private static final long REFUSAL_WAIT_MILLIS = 300;

    private TlsProbe() {}

    /**
     * The handshake's failure, or empty if it succeeded, did not finish within {@code timeout}, or the
     * connect failed. A server that ends the connection before sending anything fails it with a
     * {@link NotSslRecordException}, however the end arrived.
     */
    static Optional<Throwable> handshake(SslContext tls, URI endpoint, Duration timeout) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        CompletableFuture<Optional<Throwable>> outcome = new CompletableFuture<>();
        try {
            new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(timeout.toMillis(), 10_000))
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            SSLEngine engine = tls.newEngine(channel.alloc(), endpoint.getHost(), endpoint.getPort());
                            SSLParameters parameters = engine.getSSLParameters();
                            parameters.setEndpointIdentificationAlgorithm("HTTPS"); // as gRPC checks the host
                            engine.setSSLParameters(parameters);
                            SslHandler handler = new SslHandler(engine);
                            AtomicBoolean answered = new AtomicBoolean();
                            handler.handshakeFuture().addListener(done -> {
                                if (done.cause() != null && !answered.get()) {
                                    outcome.complete(Optional.of(notTls(done.cause())));
                                } else if (done.cause() != null) {
                                    outcome.complete(Optional.of(done.cause()));
                                } else {
                                    channel.eventLoop().schedule(() -> outcome.complete(Optional.empty()),
                                            REFUSAL_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                                }
                            });
                            channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext context, Object message) {
                                    answered.set(true);
                                    context.fireChannelRead(message);
                                }
                            });
                            channel.pipeline().addLast(handler, new ChannelInboundHandlerAdapter() {
                                @Override
                                public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
                                    // an alert (the server refused us), or an end before any answer (not TLS)
                                    outcome.complete(Optional.of(answered.get() ? cause : notTls(cause)));
                                    context.close();
                                }
                            });
                        }
                    }).connect(endpoint.getHost(), endpoint.getPort()).addListener(connected -> {
                        if (!connected.isSuccess()) {
                            // accepted, then reset before the connect finished here: ended without a byte
                            outcome.complete(reset(connected.cause()) ? Optional.of(notTls(connected.cause()))
                                    : Optional.empty());
                        }
                    });
            return outcome.get(timeout.toMillis() + REFUSAL_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return Optional.empty();
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        }
    }

    private static boolean reset(Throwable cause) {
        return cause instanceof java.net.SocketException && String.valueOf(cause.getMessage()).contains("reset");
    }

    /**
     * A handshake the server ended (closed, or reset) before it sent a single byte: a TLS server
     * always answers the client's hello first, so the port does not speak TLS. Whether the end
     * arrives as a clean close or as a reset depends on timing, not on the server.
     */
    private static Throwable notTls(Throwable cause) {
        return new NotSslRecordException("the server ended the connection before sending any TLS record ("
                + cause + ")", cause);
    }
}
