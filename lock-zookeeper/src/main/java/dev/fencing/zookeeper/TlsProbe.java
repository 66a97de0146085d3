package dev.fencing.zookeeper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.X509Exception;
import org.jspecify.annotations.Nullable;

/**
 * Why a TLS client did not connect: ZooKeeper's client retries a failed handshake without telling
 * its caller, so after a failed {@code build()} the provider makes one handshake of its own, with
 * the client's TLS settings, to the first server.
 */
final class TlsProbe {

    private TlsProbe() {}

    /** The reason the handshake with the first server of {@code connectString} failed, if TLS is on and it did. */
    static Optional<String> handshakeFailure(@Nullable ZKClientConfig config, String connectString, Duration timeout) {
        if (config == null || !config.getBoolean(ZKClientConfig.SECURE_CLIENT)) {
            return Optional.empty();
        }
        String first = connectString.split(",")[0].trim();
        int slash = first.indexOf('/'); // a chroot
        String hostPort = slash < 0 ? first : first.substring(0, slash);
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            return Optional.empty();
        }
        String host = hostPort.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        try (ClientX509Util x509 = new ClientX509Util();
                SSLSocket socket = x509.createSSLContextAndOptions(config).createSSLSocket()) {
            if (config.getBoolean(x509.getSslHostnameVerificationEnabledProperty(), true)) {
                // as ZooKeeper's client checks it (its trust manager does, on the Netty engine's peer host):
                // without this the probe's handshake passes where the client's fails, and says nothing
                javax.net.ssl.SSLParameters parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                socket.setSSLParameters(parameters);
            }
            int millis = (int) Math.min(timeout.toMillis(), 10_000);
            socket.setSoTimeout(millis);
            try {
                socket.connect(new InetSocketAddress(host, port), millis);
            } catch (IOException e) {
                return Optional.empty(); // no connection at all: nothing to say about TLS
            }
            // TLS 1.3: a refused client certificate shows after the handshake, in the first read, as the server's
            // alert; it is waited for as long as the handshake. A server that took the certificate waits for a
            // request and sends nothing, so the read times out. One that refused it may also close before its alert
            // is read, during the handshake or right after it: it stopped reading at the certificate, and closing
            // with the client's last handshake bytes unread makes its kernel reset the connection (seen on a busy
            // machine, as a reset or an end of stream instead of the alert). So once connected, any failure but a
            // timeout is the handshake's.
            try {
                socket.startHandshake();
                if (socket.getInputStream().read() < 0) {
                    return Optional.of(refused("the server closed the connection"));
                }
            } catch (SSLException e) {
                throw e;
            } catch (SocketTimeoutException e) {
                return Optional.empty();
            } catch (IOException e) {
                return Optional.of(refused("the server ended the connection (" + e + ")"));
            }
            return Optional.empty();
        } catch (SSLException e) {
            return Optional.of("the TLS handshake failed, the server's certificate is not signed by an authority the"
                    + " trust store of zkClientConfig trusts, or does not name the host connected to, or the server"
                    + " refused this client's certificate, or the port serves no TLS; a secure client never falls back"
                    + " to plaintext (" + e.getMessage() + ")");
        } catch (X509Exception.SSLContextException e) {
            return Optional.of("the TLS settings of zkClientConfig cannot be loaded (" + e.getMessage() + ")");
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String refused(String what) {
        return "the TLS handshake failed: " + what + " during it or right after it, before any request, so it most"
                + " likely refused this client's certificate (not signed by an authority its trust store trusts)";
    }
}
