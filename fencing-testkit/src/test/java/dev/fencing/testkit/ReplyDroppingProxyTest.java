package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The reply-dropping proxy over a one-line echo server: it passes requests and replies until armed,
 * then the server still gets the request, the hook runs, and the client sees the connection close
 * instead of the reply. Its threads are daemons, so a forgotten proxy never keeps a JVM alive.
 */
class ReplyDroppingProxyTest {

    @Test
    void anArmedProxyLosesTheReplyAfterTheServerActedAndRunsTheHookInTheWindow() throws Exception {
        try (ServerSocket upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                ReplyDroppingProxy proxy = ReplyDroppingProxy.start("127.0.0.1", upstream.getLocalPort())) {
            CountDownLatch served = new CountDownLatch(2);
            Thread echo = new Thread(() -> echoLines(upstream, served), "echo-for-test");
            echo.setDaemon(true);
            echo.start();

            assertThat(roundTrip(proxy.port(), "one")).isEqualTo("one");
            CountDownLatch hookRan = new CountDownLatch(1);
            proxy.dropNextReply(hookRan::countDown);

            assertThat(roundTrip(proxy.port(), "two")).as("the client sees the connection close").isNull();
            assertThat(served.await(10, TimeUnit.SECONDS)).as("the server got both requests").isTrue();
            assertThat(hookRan.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(proxy.dropped()).isEqualTo(1);

            List<Thread> threads = await().atMost(Duration.ofSeconds(10)).until(ReplyDroppingProxyTest::proxyThreads,
                    found -> !found.isEmpty());
            assertThat(threads).allSatisfy(thread -> assertThat(thread.isDaemon()).as(thread.getName()).isTrue());
        }
    }

    private static List<Thread> proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith("fencing-dropping")).toList();
    }

    /** Sends one line on a new connection and returns the line that came back, or null on end of stream. */
    private static String roundTrip(int port, String line) throws IOException {
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return readLine(client.getInputStream());
        }
    }

    private static void echoLines(ServerSocket upstream, CountDownLatch served) {
        try {
            while (true) {
                try (Socket socket = upstream.accept()) {
                    String line = readLine(socket.getInputStream());
                    served.countDown();
                    socket.getOutputStream().write((line + "\n").getBytes(StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                    readLine(socket.getInputStream());
                }
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return line.length() == 0 ? null : line.toString();
            }
            line.append((char) c);
        }
        return line.toString();
    }
}
