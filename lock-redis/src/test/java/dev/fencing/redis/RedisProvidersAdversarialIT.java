package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Cases an adversarial review of issues 15 and 16 found against the Redis providers, kept as
 * regression tests: each failed before its fix (the Javadoc of each says how).
 */
class RedisProvidersAdversarialIT {

    private final LeaseOptions longLease = LeaseOptions.ofTtl(Duration.ofSeconds(60));

    /**
     * Was broken before (b) "an acquire whose reply is unclear leaves no lock behind", on the
     * {@code waitForReplicas} path. The acquire script's reply arrives (the lock is taken); the
     * connection then drops while WAIT is in flight, and the client cannot reconnect for a couple of
     * seconds (longer than the command timeout). WAIT fails, {@code awaitReplicas} calls
     * {@code releaseQuietly()}, whose one release is rejected on the disconnected connection and
     * swallowed: unlike the acquire script's own give-back ({@code giveBack}, resent until the TTL),
     * nothing retries it. The caller gets LockUnavailableException and the lock key stays, under an
     * owner id nobody has, for the whole 60 s TTL, although the server is reachable again after ~2 s.
     */
    @Test
    void aConnectionLostDuringWaitForReplicasLeavesTheLockForItsWholeTtl() throws Exception {
        RedisTestServer redis = TestServers.redis();
        try (GateProxy gate = new GateProxy(redis.host(), redis.port());
                RedisLockProvider locks = RedisLockProvider.builder(gate.redisUri()).requestTimeout(Duration.ofSeconds(1))
                        .waitForReplicas(1, Duration.ofSeconds(3)).build();
                RedisLockProvider other = RedisLockProvider.create(redis.uri())) {
            String resource = "wait-drop-" + UUID.randomUUID();
            CompletableFuture<Optional<Lease>> attempt = CompletableFuture.supplyAsync(() -> locks.tryAcquire(resource, longLease));
            // the script ran and took the lock; WAIT (no replica acknowledges) is now blocking for up to 3 s
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                    .until(() -> "1".equals(redis.command("EXISTS", locks.lockKey(resource))));
            gate.close(true); // the link goes down, and stays down for a while
            Throwable failure = null;
            try {
                attempt.get(20, TimeUnit.SECONDS).ifPresent(Lease::release);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            assertThat(failure).as("the acquire's outcome").isInstanceOf(LockUnavailableException.class);
            gate.open(); // the server is reachable again: a give-back still pending would now get through

            Optional<Lease> next = takenWithin(Duration.ofSeconds(15), () -> other.tryAcquire(resource, longLease));
            String holder = String.valueOf(redis.command("GET", locks.lockKey(resource)));
            String ttl = String.valueOf(redis.command("PTTL", locks.lockKey(resource)));
            next.ifPresent(Lease::release);
            assertThat(next).as("another client's acquire 15 s after the failed acquire (reported: %s); the lock key is"
                    + " still held by owner %s for another %s ms", failure, holder, ttl).isPresent();
        }
    }

    /**
     * Was broken before (b) for "cancellation": {@code close()} of the provider while an acquire's script has
     * run but its reply is still on the way. The attempt fails (connection closed), and
     * {@code giveBack} returns at once because the provider is closed ("the lock expires with its
     * TTL"): the caller never gets a lease, and the lock stays for its whole 60 s TTL under an
     * owner id nobody has. A shutdown hook closing the provider while a worker acquires is ordinary.
     */
    @Test
    void closingTheProviderDuringAnAcquireLeavesTheLockForItsWholeTtl() throws Exception {
        RedisTestServer redis = TestServers.redis();
        try (LaggingProxy proxy = LaggingProxy.start(redis.host(), redis.port());
                RedisLockProvider other = RedisLockProvider.create(redis.uri())) {
            RedisLockProvider locks = RedisLockProvider.builder(proxy.redisUri()).build();
            locks.tryAcquire("close-warm-up-" + UUID.randomUUID(), LeaseOptions.ofDefaults()).orElseThrow().release();
            String resource = "close-during-acquire-" + UUID.randomUUID();
            proxy.lagReplies(Duration.ofSeconds(2));
            CompletableFuture<Lease> attempt = locks.acquireAsync(resource, longLease.withWaitTimeout(Duration.ofSeconds(10)));
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                    .until(() -> "1".equals(redis.command("EXISTS", locks.lockKey(resource))));
            locks.close();
            proxy.lagReplies(Duration.ZERO);
            Throwable failure = null;
            try {
                attempt.get(10, TimeUnit.SECONDS).close();
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            assertThat(failure).as("the pending acquire after close()").isNotNull();

            Optional<Lease> next = takenWithin(Duration.ofSeconds(15), () -> other.tryAcquire(resource, longLease));
            String ttl = String.valueOf(redis.command("PTTL", locks.lockKey(resource)));
            next.ifPresent(Lease::release);
            assertThat(next).as("another client's acquire 15 s after close() failed the pending acquire (%s); the lock"
                    + " key is still held for another %s ms", failure, ttl).isPresent();
        }
    }

    /**
     * Was broken before (c) "a frozen server costs its own leases, never another server's" (docs/guarantees.md, Limits)
     * and LeaseWatchdog's "one slow server delays only its own leases". The watchdog hands each
     * renewal to a pool of at most 1024 threads (SynchronousQueue, rejected beyond): 1100 auto-renewed
     * leases on a Redis that freezes (SIGSTOP) each block a renewal thread for the default 5 s
     * command timeout, the pool is full, and the renewals of a lease on a DIFFERENT, healthy Redis
     * are "skipped this tick" until its lock lapses and another client takes it. A service holding a
     * lease per partition for a few thousand partitions on one Redis is an ordinary deployment.
     */
    @Test
    void manyLeasesOnAFrozenRedisStarveTheRenewalsOfALeaseOnAHealthyRedis() {
        RedisTestServer frozen = RedisTestServer.launch();
        RedisTestServer healthy = RedisTestServer.launch();
        LeaseOptions renewing = LeaseOptions.builder().ttl(Duration.ofSeconds(3)).autoRenew(true).build();
        RecordingListener healthyEvents = new RecordingListener();
        try (RedisLockProvider onFrozen = RedisLockProvider.builder(frozen.uri()).build();
                RedisLockProvider onHealthy = RedisLockProvider.builder(healthy.uri()).listener(healthyEvents).build();
                RedisLockProvider otherClient = RedisLockProvider.builder(healthy.uri()).build()) {
            List<Lease> partitions = new ArrayList<>();
            for (int i = 0; i < 1100; i++) {
                partitions.add(onFrozen.tryAcquire("partition-" + i, renewing).orElseThrow());
            }
            Lease lease = onHealthy.tryAcquire("healthy", renewing).orElseThrow();

            frozen.pause();
            List<String> takenBy = new CopyOnWriteArrayList<>();
            // 12 s: two command timeouts past the freeze, four TTLs of the healthy lease
            // the look asserts, so a stolen lock fails at once; a slow look only makes the wait longer
            await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        Optional<Lease> stolen = otherClient.tryAcquire("healthy", LeaseOptions.ofDefaults());
                        stolen.ifPresent(s -> {
                            takenBy.add(s.token().toString());
                            s.release();
                        });
                        assertThat(stolen).as("another client took the HEALTHY server's lock while its holder's lease was"
                                + " auto-renewed (healthy lease valid: %s, renewals seen: %d, lost: %d)", lease.isValid(),
                                healthyEvents.renewed(), healthyEvents.lost()).isEmpty();
                        return true;
                    });
            assertThat(lease.isValid()).isTrue();
            lease.release();
        } finally {
            frozen.resume();
            frozen.stop();
            healthy.stop();
        }
    }

    /**
     * Was broken before (b) for Redlock: "otherwise released on every node, including those that did not
     * answer in time". The acquire scripts ran on all three nodes; their replies are late and the
     * links drop before the round's deadline and stay down about a second. The round ends without
     * a majority, {@code releaseEverywhere} sends one release per node, each is rejected on the
     * disconnected connection, and nothing sends it again (the single-instance provider's
     * {@code giveBack} retries until the TTL; Redlock's undo does not). Every node keeps the lock
     * under an owner id nobody has for the whole 60 s TTL: no client can take it, although every
     * node is reachable again within ~1 s.
     */
    @Test
    void redlockLinksDroppedDuringAnAcquireRoundLeaveTheLockOnEveryNodeForItsWholeTtl() throws Exception {
        List<RedisTestServer> servers = TestServers.redisNodes(3);
        List<GateProxy> gates = new ArrayList<>();
        for (RedisTestServer server : servers) {
            gates.add(new GateProxy(server.host(), server.port()));
        }
        try (RedlockProvider locks = RedlockProvider.builder(gates.stream().map(GateProxy::redisUri).toList())
                        .requestTimeout(Duration.ofSeconds(1)).build();
                RedlockProvider other = RedlockProvider.builder(servers.stream().map(RedisTestServer::uri).toList()).build()) {
            locks.tryAcquire("redlock-drop-warm-up-" + UUID.randomUUID(), LeaseOptions.ofDefaults()).orElseThrow().release();
            String resource = "redlock-drop-" + UUID.randomUUID();
            gates.forEach(gate -> gate.lagReplies(Duration.ofSeconds(3)));
            CompletableFuture<Optional<Lease>> attempt = CompletableFuture.supplyAsync(() -> locks.tryAcquire(resource, longLease));
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> servers.stream()
                    .allMatch(server -> "1".equals(server.command("EXISTS", locks.lockKey(resource)))));
            gates.forEach(gate -> gate.close(true)); // within the round's 1 s deadline: the links go down
            Throwable failure = null;
            try {
                attempt.get(20, TimeUnit.SECONDS).ifPresent(Lease::release);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            gates.forEach(gate -> gate.lagReplies(Duration.ZERO));
            gates.forEach(GateProxy::open);

            Optional<Lease> next = takenWithin(Duration.ofSeconds(15), () -> other.tryAcquire(resource, longLease));
            List<String> left = servers.stream().map(server -> server.port() + ": " + server.command("PTTL",
                    locks.lockKey(resource)) + " ms").toList();
            next.ifPresent(Lease::release);
            assertThat(next).as("another client's Redlock acquire 15 s after the failed round (reported: %s); lock keys"
                    + " left per node: %s", failure, left).isPresent();
        } finally {
            gates.forEach(GateProxy::close);
        }
    }

    /**
     * A TCP proxy whose link can go down and stay down: {@link #close(boolean)} drops every open
     * connection and, with {@code blackHole}, holds new ones open without forwarding a byte (a
     * client's reconnect handshake gets no answer) until {@link #open()}.
     */

    /**
     * The lease another provider takes within {@code limit} once the server's state lets it (polled
     * every 100 ms; an unreachable server counts as "not yet"), or empty — the caller's assertion
     * then reports the server's state.
     */
    private static Optional<Lease> takenWithin(Duration limit, Callable<Optional<Lease>> attempt) {
        AtomicReference<Lease> taken = new AtomicReference<>();
        try {
            await().atMost(limit).pollInterval(Duration.ofMillis(100)).ignoreException(LockUnavailableException.class)
                    .until(() -> {
                        attempt.call().ifPresent(taken::set);
                        return taken.get() != null;
                    });
        } catch (ConditionTimeoutException e) {
            // not taken in time: the assertion that follows says what the server still holds
        }
        return Optional.ofNullable(taken.get());
    }
    private static final class GateProxy implements AutoCloseable {
        private final ServerSocket listener;
        private final String host;
        private final int port;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final List<Socket> held = new CopyOnWriteArrayList<>();
        private volatile boolean blackHole;
        private volatile long replyLagMillis;

        GateProxy(String host, int port) throws IOException {
            this.host = host;
            this.port = port;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "attack-gate-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String redisUri() {
            return "redis://127.0.0.1:" + listener.getLocalPort();
        }

        void close(boolean blackHoleNewConnections) {
            blackHole = blackHoleNewConnections;
            List<Socket> open = List.copyOf(sockets);
            sockets.removeAll(open);
            open.forEach(GateProxy::quietly);
        }

        void lagReplies(Duration lag) {
            replyLagMillis = lag.toMillis();
        }

        void open() {
            blackHole = false;
            List<Socket> stuck = List.copyOf(held);
            held.removeAll(stuck);
            stuck.forEach(GateProxy::quietly); // the client's pending handshakes fail at once and it reconnects
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    if (blackHole) {
                        held.add(client);
                        continue;
                    }
                    Socket server = new Socket(host, port);
                    sockets.add(client);
                    sockets.add(server);
                    pump(client, server, false);
                    pump(server, client, true);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void pump(Socket from, Socket to, boolean replies) {
            Thread thread = new Thread(() -> {
                byte[] buffer = new byte[16 * 1024];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int read;
                    while ((read = in.read(buffer)) >= 0) {
                        long lag = replyLagMillis;
                        if (replies && lag > 0) {
                            Thread.sleep(lag);
                        }
                        out.write(buffer, 0, read);
                        out.flush();
                    }
                } catch (IOException | InterruptedException e) {
                    // closed
                } finally {
                    quietly(from);
                    quietly(to);
                }
            }, "attack-gate-pump");
            thread.setDaemon(true);
            thread.start();
        }

        private static void quietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed already
            }
        }

        @Override
        public void close() {
            quietly(listener);
            sockets.forEach(GateProxy::quietly);
            held.forEach(GateProxy::quietly);
        }

        private static void quietly(ServerSocket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed already
            }
        }
    }
}
