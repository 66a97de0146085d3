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

/** {@link LaggingProxy#holdReplies()} in front of a loopback echo server that counts the bytes it received. */
class LaggingProxyTest {

    private final AtomicInteger received = new AtomicInteger();
    private final ServerSocket echo = echoServer();
    private final LaggingProxy proxy = LaggingProxy.start("127.0.0.1", echo.getLocalPort());

    @AfterEach
    void close() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void heldRepliesComeBackOnlyOnceTheyPassWhileRequestsReachTheServer() throws IOException {
        try (Socket client = connect()) {
            proxy.holdReplies();
            client.getOutputStream().write('a');

            await().atMost(Duration.ofSeconds(5)).until(() -> received.get() == 1);
            assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);

            proxy.passReplies();
            assertThat(client.getInputStream().read()).isEqualTo('a');
        }
    }

    @Test
    void connectionsOpenedWhileHeldReachTheServerAndGetTheirRepliesOnPassEvenIfAnotherWasAbandoned() throws IOException {
        proxy.holdReplies();
        try (Socket abandoned = connect()) {
            abandoned.getOutputStream().write('x');
            await().atMost(Duration.ofSeconds(5)).until(() -> received.get() == 1);
        }
        try (Socket next = connect()) {
            next.getOutputStream().write('y');
            await().atMost(Duration.ofSeconds(5)).until(() -> received.get() == 2);
            proxy.passReplies();
            assertThat(next.getInputStream().read()).isEqualTo('y');
        }
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
