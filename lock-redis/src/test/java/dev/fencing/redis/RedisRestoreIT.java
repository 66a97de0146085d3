package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis comes back with old data — a restart from an older RDB snapshot, a failover to a replica
 * that missed the last writes — and the token counter with it: the next grant's token must still
 * be above every token issued before (each grant takes {@code max(counter + 1, TIME in µs)}).
 * Every server here is a redis-server process of this class's own.
 */
class RedisRestoreIT {

    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            try {
                cleanup.get(i).close();
            } catch (RuntimeException alreadyDown) {
                // killed by the test
            }
        }
    }

    private RedisTestServer persistent(String name) throws IOException {
        Path data = Files.createDirectories(dir.resolve(name));
        RedisTestServer server = RedisTestServer.launch("--dir", data.toString(), "--dbfilename", "dump.rdb");
        cleanup.add(server::kill);
        return server;
    }

    private <P extends LockProvider> P track(P provider) {
        cleanup.add(provider);
        return provider;
    }

    /** Takes and releases the lock {@code count} times; returns the largest token. */
    private static long grants(LockProvider provider, String resource, int count) {
        long max = 0;
        for (int i = 0; i < count; i++) {
            Lease lease = await().atMost(Duration.ofSeconds(20)).ignoreException(LockUnavailableException.class)
                    .until(() -> provider.tryAcquire(resource, LeaseOptions.ofDefaults()), Optional::isPresent)
                    .orElseThrow();
            assertThat(lease.token().value()).as("tokens increase").isGreaterThan(max);
            max = lease.token().value();
            lease.release();
        }
        return max;
    }

    /** Saves the server's data now and keeps a copy of that snapshot. */
    private static Path snapshot(RedisTestServer server, Path data) throws IOException {
        assertThat(server.command("SAVE")).isEqualTo("OK");
        return Files.copy(data.resolve("dump.rdb"), data.resolve("older.rdb"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** SIGKILL, put the older snapshot back, start: what a crash followed by a restore from backup does. */
    private static void restartFrom(RedisTestServer server, Path older) throws IOException {
        server.kill();
        Files.copy(older, older.resolveSibling("dump.rdb"), StandardCopyOption.REPLACE_EXISTING);
        server.start();
    }

    @Test
    void aRestartFromAnOlderSnapshotDoesNotRepeatTokens() throws IOException {
        RedisTestServer redis = persistent("single");
        String resource = "restore";
        long issued;
        Path older;
        try (RedisLockProvider provider = RedisLockProvider.create(redis.uri())) {
            grants(provider, resource, 3);
            older = snapshot(redis, dir.resolve("single"));
            issued = grants(provider, resource, 3);
        }
        restartFrom(redis, older);
        assertThat(Long.parseLong((String) redis.command("GET", "fencing:{restore}:token")))
                .as("the counter came back old").isLessThan(issued);

        RedisLockProvider provider = track(RedisLockProvider.create(redis.uri()));
        assertThat(grants(provider, resource, 1)).as("next token after the restore").isGreaterThan(issued);
    }

    /**
     * The replica's replication stream passes through a proxy; once it is in sync the proxy holds
     * the stream back, the master grants more, dies, and the replica — which never saw those
     * grants — is promoted.
     */
    @Test
    void aFailoverToAReplicaThatMissedGrantsDoesNotRepeatTokens() {
        RedisTestServer master = RedisTestServer.launch();
        cleanup.add(master::kill);
        LaggingProxy link = LaggingProxy.start(master.host(), master.port());
        cleanup.add(link);
        RedisTestServer replica = RedisTestServer.launch("--replicaof", "127.0.0.1", Integer.toString(link.port()));
        cleanup.add(replica::kill);
        String resource = "failover";

        RedisLockProvider onMaster = track(RedisLockProvider.create(master.uri()));
        long seen = grants(onMaster, resource, 3);
        await().atMost(Duration.ofSeconds(20)).until(() -> Long.toString(seen)
                .equals(replica.command("GET", "fencing:{failover}:token")));
        link.lagReplies(Duration.ofMinutes(10)); // the replication stream stops here
        long issued = grants(onMaster, resource, 3);
        master.kill();
        link.close();
        assertThat(replica.command("GET", "fencing:{failover}:token")).as("the replica missed the last grants")
                .isEqualTo(Long.toString(seen));
        assertThat(replica.command("REPLICAOF", "NO", "ONE")).isEqualTo("OK");

        RedisLockProvider onPromoted = track(RedisLockProvider.create(replica.uri()));
        assertThat(grants(onPromoted, resource, 1)).as("next token after the failover").isGreaterThan(issued);
    }

    /**
     * Two of three Redlock nodes come back from an older snapshot and the third is down: the
     * majority that grants next never saw the last tokens, and must still go above them.
     */
    @Test
    void redlockNodesRestoredFromAnOlderSnapshotDoNotRepeatTokens() throws IOException {
        List<RedisTestServer> nodes = List.of(persistent("n0"), persistent("n1"), persistent("n2"));
        List<String> uris = nodes.stream().map(RedisTestServer::uri).toList();
        String resource = "redlock-restore";
        long issued;
        List<Path> older = new ArrayList<>();
        try (RedlockProvider redlock = RedlockProvider.builder(uris).build()) {
            grants(redlock, resource, 3);
            // a Redlock release settles at a majority: the last node's may still be on its way, and a
            // snapshot taken before it lands would bring back a held lock key for its whole TTL
            for (RedisTestServer node : nodes) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> "0".equals(node.command("EXISTS", redlock.lockKey(resource))));
            }
            older.add(snapshot(nodes.get(0), dir.resolve("n0")));
            older.add(snapshot(nodes.get(1), dir.resolve("n1")));
            issued = grants(redlock, resource, 3);
        }
        restartFrom(nodes.get(0), older.get(0));
        restartFrom(nodes.get(1), older.get(1));
        nodes.get(2).kill();

        RedlockProvider redlock = track(RedlockProvider.builder(uris).build());
        assertThat(grants(redlock, resource, 1)).as("next token after the restore").isGreaterThan(issued);
    }
}
