package dev.fencing.testkit.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link PartitionProxy#cut()} in front of a loopback echo server that counts the bytes it received. */
class PartitionProxyTest {

    private final AtomicInteger received = new AtomicInteger();
    private final ServerSocket echo = echoServer();
    private final PartitionProxy proxy = PartitionProxy.start("127.0.0.1", echo.getLocalPort());

    @AfterEach
    void close() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void aCutStopsBytesBothWaysWithoutClosingAndHealClosesWhatLivedThroughIt() throws IOException {
        try (Socket client = connect()) {
            client.getOutputStream().write('a');
            assertThat(client.getInputStream().read()).isEqualTo('a');

            proxy.cut();
            client.getOutputStream().write('b');
            assertThatThrownBy(() -> client.getInputStream().read()).as("silent, not closed")
                    .isInstanceOf(SocketTimeoutException.class);
            assertThat(received).as("the request did not reach the server either").hasValue(1);

            proxy.heal();
            client.setSoTimeout(5000);
            assertThat(client.getInputStream().read()).as("closed by heal(), its bytes lost").isEqualTo(-1);
            assertThat(received).hasValue(1);
        }
        try (Socket next = connect()) {
            next.getOutputStream().write('c');
            assertThat(next.getInputStream().read()).isEqualTo('c');
        }
    }

    @Test
    void aConnectionMadeDuringACutHangsAndIsClosedOnHeal() throws IOException {
        proxy.cut();
        try (Socket during = connect()) {
            during.getOutputStream().write('x');
            assertThatThrownBy(() -> during.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            proxy.heal();
            during.setSoTimeout(5000);
            assertThat(during.getInputStream().read()).isEqualTo(-1);
        }
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(30)).until(() -> received.get() == 0);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        socket.setSoTimeout(500);
        return socket;
    }

    private ServerSocket echoServer() {
        try {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket connection = server.accept();
                        Thread echoing = new Thread(() -> echo(connection), "echo");
                        echoing.setDaemon(true);
                        echoing.start();
                    } catch (IOException e) {
                        return; // closed
                    }
                }
            }, "echo-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a loopback echo server", e);
        }
    }

    private void echo(Socket connection) {
        try (connection; InputStream in = connection.getInputStream(); OutputStream out = connection.getOutputStream()) {
            int b;
            while ((b = in.read()) >= 0) {
                received.incrementAndGet();
                out.write(b);
                out.flush();
            }
        } catch (IOException e) {
            // the proxy closed the link
        }
    }
}
