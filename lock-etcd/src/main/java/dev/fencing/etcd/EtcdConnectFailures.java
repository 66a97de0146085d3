package dev.fencing.etcd;

import dev.fencing.etcd.internal.Replies;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Why a provider's first request failed, in words an operator can act on: a TLS handshake, refused
 * credentials, a role without the key prefix, or no answer. jetcd's messages carry no password;
 * neither do these.
 */
final class EtcdConnectFailures {

    private EtcdConnectFailures() {}

    /**
     * The reason for {@code failure} of the first request, sent over TLS with {@code tls} if not
     * null. gRPC retries a failed handshake quietly until the request times out, and a server that
     * resets the connection looks to gRPC like any failed handshake, so a failure over TLS is
     * followed by one handshake of the provider's own to {@code endpoint}, whose error, if any, is
     * the reason (a server that ends the connection before sending a byte is not speaking TLS).
     */
    static String describe(Replies.Unclear failure, Duration requestTimeout, @Nullable SslContext tls, URI endpoint) {
        String detail = String.valueOf(failure.getMessage());
        Optional<Throwable> grpcs = handshakeFailed(failure) ? Optional.of(failure) : Optional.empty();
        Optional<Throwable> handshake = tls == null || grpcs.isPresent() && notTls(failure) ? grpcs
                : TlsProbe.handshake(tls, endpoint, requestTimeout).or(() -> grpcs);
        if (handshake.isPresent() && notTls(handshake.get())) {
            return "the server answered the TLS handshake without TLS, or closed the connection without a TLS alert:"
                    + " the endpoint is likely a plaintext port, and an https:// endpoint never falls back to plaintext";
        }
        if (handshake.isPresent()) {
            return "the TLS handshake failed, the server's certificate is not signed by an authority sslContext"
                    + " trusts, or does not name the host connected to, or the server refused this client's"
                    + " certificate (" + text(handshake.get()) + ")";
        }
        String lower = chainText(failure).toLowerCase(Locale.ROOT);
        if (lower.contains("authentication failed") || lower.contains("invalid auth token")
                || lower.contains("user name not found") || lower.contains("user name is empty")) {
            return "etcd refused the credentials (" + detail + ")";
        }
        if (lower.contains("permission denied")) {
            return "etcd's RBAC refused a read of the key prefix: the user's role needs readwrite on the prefix's"
                    + " range (" + detail + ")";
        }
        return "etcd did not answer within requestTimeout " + requestTimeout.toMillis() + " ms: " + detail
                + (tls != null ? "; over https:// a TLS handshake that never completes ends this way too"
                        : "; an http:// endpoint on a port that expects TLS ends this way too");
    }

    private static boolean handshakeFailed(Throwable failure) {
        for (@Nullable Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SSLException) {
                return true;
            }
            String message = String.valueOf(t.getMessage());
            if (message.contains("SSLHandshakeException") || message.contains("PKIX path")
                    || message.contains("bad_certificate") || message.contains("certificate_unknown")) {
                return true;
            }
        }
        return false;
    }

    /** Whether the handshake got an answer that is not TLS, or none before the server closed: a plaintext port. */
    private static boolean notTls(Throwable failure) {
        for (@Nullable Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof NotSslRecordException || t instanceof java.nio.channels.ClosedChannelException) {
                return true;
            }
        }
        return false;
    }

    private static String text(Throwable failure) {
        return failure.getMessage() != null ? failure.getMessage() : failure.getClass().getName();
    }

    private static String chainText(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (@Nullable Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t.getMessage()).append('\n');
        }
        return text.toString();
    }

    /** TLS for {@code https://} endpoints when the builder got no {@code sslContext}: the JVM's default trust. */
    static SslContext defaultSslContext() {
        try {
            return GrpcSslContexts.forClient().build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS with the JVM's default trust: " + e.getMessage(), e);
        }
    }
}
