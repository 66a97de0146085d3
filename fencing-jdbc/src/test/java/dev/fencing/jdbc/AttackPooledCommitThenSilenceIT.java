package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.RecordingListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * Adversarial review, issue 50 (guarantee 11) on JDBC: a statement that COMMITTED, then the link
 * goes silent before the connection is handed back to its pool.
 *
 * <p>{@code JdbcStorageAccessor.withConnection} runs the guarded UPDATE (auto-commit: committed when
 * its OK packet arrives) inside {@code try (Connection c = dataSource.getConnection())}. A pool
 * whose connections default to {@code autoCommit=false} (HikariCP, as Spring/JPA set-ups often
 * configure it) sees the store's {@code setAutoCommit(true)} and, on {@code close()}, resets it:
 * MariaDB Connector/J sends {@code set autocommit=0}. If the server stops answering right after the
 * UPDATE's reply, that reset times out, HikariCP's {@code close()} throws the driver's 08-class
 * {@code SQLException}, the accessor's outer {@code catch (SQLException)} wraps it in
 * {@code UncheckedSqlException}, and the core turns it into {@link StoreUnavailableException} —
 * "nothing was written by this call" — for a write that committed.
 */
class AttackPooledCommitThenSilenceIT {

    private static final Pattern HOST_AND_PORT = Pattern.compile("(jdbc:[a-z]+://)([^:/]+):(\\d+)(/.*)");

    @ParameterizedTest
    @ValueSource(strings = {"write", "update", "delete"})
    void aCommittedWriteIsNeverStoreUnavailableWhenTheLinkGoesSilentBeforeThePoolTakesTheConnectionBack(String op)
            throws Exception {
        MariaDbDataSource direct = (MariaDbDataSource) Databases.mariaDbWith("socketTimeout=2000&useServerPrepStmts=false");
        Matcher url = HOST_AND_PORT.matcher(direct.getUrl());
        assertThat(url.matches()).as("a MariaDB URL").isTrue();
        try (CutAfterReplyProxy proxy = new CutAfterReplyProxy(url.group(2), Integer.parseInt(url.group(3)))) {
            HikariConfig config = new HikariConfig();
            config.setDataSource(new MariaDbDataSource(url.group(1) + "127.0.0.1:" + proxy.port() + url.group(4)));
            config.setAutoCommit(false); // the pool's default for its connections
            config.setMaximumPoolSize(2);
            config.setConnectionTimeout(3_000);
            config.setValidationTimeout(1_000);
            try (HikariDataSource pool = new HikariDataSource(config)) {
                RecordingListener events = new RecordingListener();
                FencedStore store = JdbcFencedStore.builder(pool).listener(events).build();
                String key = "attack-pooled-" + System.nanoTime();
                store.write(FencingToken.of("attack", 4), key, "before"); // the row exists, the table is checked

                proxy.cutAfterReplyTo("SET item_value"); // the guarded UPDATE's text (client-side prepared)
                FencingToken five = FencingToken.of("attack", 5);
                Throwable thrown = catchThrowable(() -> {
                    switch (op) {
                        case "write" -> store.write(five, key, "after");
                        case "update" -> store.update(five, key, v -> "after");
                        default -> store.delete(five, key);
                    }
                });
                proxy.heal();

                assertThat(proxy.cutDone()).as("the link was cut after the UPDATE's reply").isTrue();
                FencedStore check = JdbcFencedStore.builder(direct).build();
                assertThat(check.highWaterMark(key)).as("the UPDATE committed").hasValue(5);
                if (!op.equals("delete")) {
                    assertThat(check.read(key)).as("the UPDATE committed").contains(new StoredValue(key, "after", 5));
                }
                assertThat(thrown).as("a write that committed must return ('written') or be"
                        + " WriteOutcomeUnknownException, never StoreUnavailableException ('nothing was written by this"
                        + " call'); got: %s", thrown)
                        .satisfiesAnyOf(t -> assertThat(t).isNull(),
                                t -> assertThat(t).isInstanceOf(WriteOutcomeUnknownException.class));
            }
        }
    }

    /**
     * A TCP proxy that passes everything until armed with a marker; the reply to the request whose
     * bytes contain it passes too, and then no byte passes any more in either direction (connections
     * stay open, new ones hang), until {@link #heal()} closes them all.
     */
    static final class CutAfterReplyProxy implements AutoCloseable {
        private final ServerSocket listener;
        private final String host;
        private final int port;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final Object gate = new Object();
        private volatile String marker;
        private volatile boolean armed;
        private boolean cut; // guarded by gate
        private volatile boolean cutDone;

        CutAfterReplyProxy(String host, int port) throws IOException {
            this.host = host;
            this.port = port;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "attack-cut-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        void cutAfterReplyTo(String marker) {
            this.marker = marker;
        }

        boolean cutDone() {
            return cutDone;
        }

        void heal() {
            List<Socket> open = List.copyOf(sockets);
            sockets.removeAll(open);
            for (Socket s : open) {
                closeQuietly(s);
            }
            synchronized (gate) {
                cut = false;
                gate.notifyAll();
            }
        }

        private void awaitPassing() throws InterruptedException {
            synchronized (gate) {
                while (cut) {
                    gate.wait();
                }
            }
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    sockets.add(client);
                    Thread t = new Thread(() -> connect(client), "attack-cut-proxy-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void connect(Socket client) {
            try {
                awaitPassing();
                Socket server = new Socket(host, port);
                server.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
                sockets.add(server);
                Thread back = new Thread(() -> pump(server, client, true), "attack-cut-proxy-pump");
                back.setDaemon(true);
                back.start();
                pump(client, server, false);
            } catch (IOException | InterruptedException e) {
                closeQuietly(client);
            }
        }

        private void pump(Socket from, Socket to, boolean replies) {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    awaitPassing();
                    String wanted = marker;
                    if (!replies && wanted != null
                            && new String(buffer, 0, read, StandardCharsets.ISO_8859_1).contains(wanted)) {
                        marker = null;
                        armed = true;
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                    if (replies && armed) {
                        armed = false;
                        synchronized (gate) {
                            cut = true; // the reply went through; from now on nothing does
                        }
                        cutDone = true;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }

        private static void closeQuietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }

        @Override
        public void close() {
            try {
                listener.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            heal();
        }
    }
}
