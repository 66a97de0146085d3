package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS front for a plaintext test server — what a load balancer or a sidecar does for an emulator
 * that speaks only HTTP (dynalite, S3Mock): it serves TLS on a loopback port with the server
 * certificate of {@link TestCertificates}, {@linkplain #requiringClientCertificates optionally
 * requiring} a client certificate of the same authority, and passes the decrypted bytes to
 * {@code host:port}. Each connection is pumped by two daemon threads.
 */
public final class TlsTerminatingProxy implements AutoCloseable {

    private final SSLServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private TlsTerminatingProxy(SSLServerSocket listener, String targetHost, int targetPort) {
        this.listener = listener;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        Thread acceptor = new Thread(this::accept, "fencing-tls-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A TLS front for {@code host:port}; clients need no certificate. */
    public static TlsTerminatingProxy start(TestCertificates certificates, String host, int port) {
        return start(certificates, host, port, false);
    }

    /** As {@link #start}, but the handshake fails for a client without a certificate of the test authority. */
    public static TlsTerminatingProxy requiringClientCertificates(TestCertificates certificates, String host, int port) {
        return start(certificates, host, port, true);
    }

    private static TlsTerminatingProxy start(TestCertificates certificates, String host, int port,
            boolean needClientAuth) {
        try {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(certificates.serverKeyStore())) {
                keys.load(in, certificates.password());
            }
            KeyStore trust = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(certificates.trustStore())) {
                trust.load(in, certificates.password());
            }
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, certificates.password());
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(
                    TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            SSLServerSocket listener = (SSLServerSocket) context.getServerSocketFactory()
                    .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
            listener.setNeedClientAuth(needClientAuth);
            return new TlsTerminatingProxy(listener, host, port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a TLS proxy in front of " + host + ":" + port, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the test certificates for a TLS proxy", e);
        }
    }

    /** The TLS port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code https://127.0.0.1:port}. */
    public String httpsEndpoint() {
        return "https://127.0.0.1:" + port();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                daemon(() -> connect(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void connect(Socket client) {
        try {
            Socket server = new Socket(targetHost, targetPort);
            server.setTcpNoDelay(true);
            sockets.add(server);
            daemon(() -> pump(server, client));
            pump(client, server); // a failed handshake ends the first read
        } catch (IOException e) {
            closeQuietly(client);
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // connection closed, or the handshake failed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private static void daemon(Runnable pump) {
        Thread thread = new Thread(pump, "fencing-tls-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(TlsTerminatingProxy::closeQuietly);
    }
}
