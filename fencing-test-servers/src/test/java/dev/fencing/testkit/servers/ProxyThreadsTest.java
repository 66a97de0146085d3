package dev.fencing.testkit.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The partition and lagging proxies and the silent server never keep a JVM alive: a user's
 * {@code main} (or the CLI) that starts one and forgets to close it still exits. Every thread they
 * start — acceptors and the pumps of live connections — is a daemon. (The reply-dropping proxy,
 * which lives in fencing-testkit, has the same test there.)
 */
class ProxyThreadsTest {

    @Test
    void everyThreadOfTheProxiesAndTheSilentServerIsADaemon() throws IOException {
        try (ServerSocket upstream = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> acceptForever(upstream), "upstream-for-test");
            acceptor.setDaemon(true);
            acceptor.start();
            int port = upstream.getLocalPort();
            List<AutoCloseable> opened = new ArrayList<>();
            List<Socket> clients = new ArrayList<>();
            try {
                PartitionProxy partition = PartitionProxy.start("127.0.0.1", port);
                LaggingProxy lagging = LaggingProxy.start("127.0.0.1", port);
                SilentServer silent = SilentServer.start();
                opened.addAll(List.of(partition, lagging, silent));
                for (int proxyPort : List.of(partition.port(), lagging.port(), silent.port())) {
                    Socket client = new Socket("127.0.0.1", proxyPort);
                    clients.add(client);
                    OutputStream out = client.getOutputStream();
                    out.write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    out.flush();
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> testkitThreads().stream().map(Thread::getName)
                        .filter(name -> name.contains("pump") || name.contains("reader")).map(ProxyThreadsTest::kind)
                        .distinct().count() == 3);

                assertThat(testkitThreads()).as("the testkit's threads").isNotEmpty()
                        .allSatisfy(thread -> assertThat(thread.isDaemon()).as(thread.getName() + " is a daemon").isTrue());
            } finally {
                for (Socket client : clients) {
                    client.close();
                }
                for (AutoCloseable closeable : opened) {
                    try {
                        closeable.close();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
    }

    private static List<Thread> testkitThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith("fencing-")).toList();
    }

    /** "fencing-lagging-proxy-pump" → "lagging", "fencing-silent-reader-123" → "silent". */
    private static String kind(String threadName) {
        return threadName.split("-")[1];
    }

    private static void acceptForever(ServerSocket upstream) {
        List<Socket> accepted = new ArrayList<>();
        try {
            while (true) {
                accepted.add(upstream.accept());
            }
        } catch (IOException closed) {
            accepted.forEach(socket -> {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // the test is over
                }
            });
        }
    }
}
