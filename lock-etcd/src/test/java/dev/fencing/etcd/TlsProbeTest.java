package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.NotSslRecordException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A port that does not speak TLS is told apart from a refused handshake however the server ends
 * the connection: a clean close, or a reset (what a plaintext etcd does to a TLS hello on a busy
 * machine, where CI once saw "Connection reset" called a refused certificate).
 */
class TlsProbeTest {

    private interface Reply {
        void to(Socket client) throws IOException;
    }

    @Test
    void aResetBeforeAnyByteIsNotTls() throws Exception {
        assertThat(probe(client -> {
            client.setSoLinger(true, 0); // close sends RST
            client.close();
        })).containsInstanceOf(NotSslRecordException.class)
                .hasValueSatisfying(e -> assertThat(e).hasMessageContaining("before sending any TLS record"));
    }

    @Test
    void aResetAfterReadingTheHelloIsNotTls() throws Exception {
        assertThat(probe(client -> {
            readSome(client.getInputStream());
            client.setSoLinger(true, 0);
            client.close();
        })).containsInstanceOf(NotSslRecordException.class);
    }

    @Test
    void aCleanCloseAfterReadingTheHelloIsNotTls() throws Exception {
        assertThat(probe(client -> {
            readSome(client.getInputStream());
            client.close();
        })).containsInstanceOf(NotSslRecordException.class);
    }

    @Test
    void aPlaintextAnswerIsNotTls() throws Exception {
        assertThat(probe(client -> {
            readSome(client.getInputStream());
            client.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
            client.close();
        })).containsInstanceOf(NotSslRecordException.class);
    }

    private static void readSome(InputStream in) throws IOException {
        byte[] buffer = new byte[5];
        int read = 0;
        while (read < buffer.length) {
            int n = in.read(buffer, read, buffer.length - read);
            if (n < 0) {
                return;
            }
            read += n;
        }
    }

    private static Optional<Throwable> probe(Reply reply) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread serving = new Thread(() -> {
                try (Socket client = server.accept()) {
                    reply.to(client);
                } catch (IOException e) {
                    // the probe went away first
                }
            });
            serving.setDaemon(true);
            serving.start();
            return TlsProbe.handshake(EtcdConnectFailures.defaultSslContext(),
                    URI.create("https://127.0.0.1:" + server.getLocalPort()), Duration.ofSeconds(30));
        }
    }
}
