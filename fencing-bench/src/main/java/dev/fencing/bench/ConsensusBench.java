package dev.fencing.bench;

import dev.fencing.cli.backends.ConnectionOptions;

import dev.fencing.core.LeaseOptions;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;

/**
 * Bench comparisons 9 and 10: the consensus-backed providers against their own client libraries'
 * locks, uncontended, one thread, on one server (started here unless the connection options name
 * one). Each contender uses a client of its own.
 *
 * <ul>
 *   <li>etcd: jetcd's Lock service ({@code Lock.lock(name, leaseId)} + {@code unlock}) on a lease
 *       granted once before the run — the cheapest way to use it — and with a lease granted and
 *       revoked per grant, as the provider does (a holder that dies loses its lock one TTL later
 *       either way).
 *   <li>ZooKeeper: Curator's {@code InterProcessMutex} acquire + release, and a bare create of an
 *       ephemeral sequential znode + delete, the two round trips no lock recipe can do without.
 * </ul>
 *
 * Each also has a row of what the provider sends, sent by hand without one guarantee, to measure
 * what that guarantee costs: for etcd the acquire transaction with a plain delete (no owner check:
 * a release after the lease ran out would delete a newer holder's key), for ZooKeeper the three
 * requests with Curator's synchronous delete (unbounded and abandoned on an interrupt, where the
 * provider's release is bounded and reports whether it deleted).
 */
final class ConsensusBench {

    /** The TTL of each grant's lease, revoked at once: long enough that none runs out during an operation. */
    private static final Duration TTL = Duration.ofSeconds(60);
    /** The TTL of the one lease jetcd's Lock service uses throughout the comparison, revoked at the end. */
    private static final Duration SESSION_TTL = Duration.ofMinutes(30);

    private final BenchRunner runner;
    private final ConnectionOptions connections;
    private final Consumer<AutoCloseable> closeLater;

    ConsensusBench(BenchRunner runner, ConnectionOptions connections, Consumer<AutoCloseable> closeLater) {
        this.runner = runner;
        this.connections = connections;
        this.closeLater = closeLater;
    }

    /** A comparison's rows, the server they ran on in words, and each row's cost per operation. */
    record Result(String server, List<BenchRunner.Row> rows, List<CycleAccounting.Account> accounts) {}

    /** Comparison 9: {@link EtcdLockProvider} against jetcd's Lock service. */
    Result etcd() throws Exception {
        List<String> given = connections.etcdEndpoints();
        String server = given.isEmpty() ? "one etcd member (Debian's etcd-server, child process), same machine"
                : "the etcd endpoints " + String.join(",", given);
        List<String> endpoints = given;
        if (endpoints.isEmpty()) {
            EtcdTestServer etcd = EtcdTestServer.launch();
            closeLater.accept(etcd::stop);
            endpoints = etcd.endpoints();
        }
        EtcdLockProvider ours = EtcdLockProvider.create(endpoints.toArray(String[]::new));
        closeLater.accept(ours);
        Client jetcd = Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
        closeLater.accept(jetcd);
        Lock lockService = jetcd.getLockClient();
        io.etcd.jetcd.Lease leaseService = jetcd.getLeaseClient();
        long sessionLease = leaseService.grant(SESSION_TTL.toSeconds()).get(10, TimeUnit.SECONDS).getID();
        closeLater.accept(() -> leaseService.revoke(sessionLease).get(10, TimeUnit.SECONDS));
        // unique per run: an etcd given by an option may hold a lock key of an earlier run
        String run = Long.toHexString(System.nanoTime());
        ByteSequence onSession = bytes("bench-jetcd-session-" + run);
        ByteSequence perHolder = bytes("bench-jetcd-lease-" + run);
        KV kv = jetcd.getKVClient();
        ByteSequence handKey = bytes("bench-by-hand-" + run + "/lock");
        ByteSequence handOwner = bytes("by-hand-owner");
        LeaseOptions lease = LeaseOptions.ofTtl(TTL);
        List<BenchRunner.Contender> contenders = List.of(
                new BenchRunner.Contender("jetcd Lock service lock + unlock, on one lease granted before the run",
                        (w, i) -> {
                            ByteSequence key = lockService.lock(onSession, sessionLease).get(10, TimeUnit.SECONDS).getKey();
                            lockService.unlock(key).get(10, TimeUnit.SECONDS);
                        }),
                new BenchRunner.Contender("fencing EtcdLockProvider tryAcquire + release", (w, i) ->
                        ours.tryAcquire("bench-ours-" + run, lease).orElseThrow().release()),
                new BenchRunner.Contender("by hand, without the owner check: the acquire transaction + a plain delete",
                        (w, i) -> {
                            kv.txn().If(new Cmp(handKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                                    .Then(Op.put(handKey, handOwner, PutOption.builder().withLeaseId(sessionLease).build()),
                                            Op.get(handKey, GetOption.DEFAULT))
                                    .Else(Op.get(handKey, GetOption.DEFAULT)).commit().get(10, TimeUnit.SECONDS);
                            kv.delete(handKey).get(10, TimeUnit.SECONDS);
                        }),
                new BenchRunner.Contender("jetcd Lock service with a lease per grant: grant + lock + unlock + revoke",
                        (w, i) -> {
                            long id = leaseService.grant(TTL.toSeconds()).get(10, TimeUnit.SECONDS).getID();
                            ByteSequence key = lockService.lock(perHolder, id).get(10, TimeUnit.SECONDS).getKey();
                            lockService.unlock(key).get(10, TimeUnit.SECONDS);
                            leaseService.revoke(id).get(10, TimeUnit.SECONDS);
                        }));
        List<BenchRunner.Row> rows = runner.latency(contenders);
        return new Result(server, rows, CycleAccounting.of(contenders, RequestCounters.etcd(endpoints.get(0))));
    }

    /** Comparison 10: {@link ZooKeeperLockProvider} against Curator's {@code InterProcessMutex}. */
    Result zooKeeper() throws Exception {
        Optional<String> given = connections.zooKeeperConnect();
        String server = given.map(connect -> "the ZooKeeper at " + connect)
                .orElse("ZooKeeper 3.9 (curator-test's TestingServer, in this JVM), same machine");
        String connect = given.orElseGet(() -> {
            ZooKeeperTestServer zooKeeper = ZooKeeperTestServer.launch();
            closeLater.accept(zooKeeper::stop);
            return zooKeeper.connectString();
        });
        ZooKeeperLockProvider ours = ZooKeeperLockProvider.create(connect);
        closeLater.accept(ours);
        CuratorFramework curator = CuratorFrameworkFactory.newClient(connect, new RetryNTimes(3, 100));
        curator.start();
        closeLater.accept(curator);
        if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Curator did not connect to ZooKeeper at " + connect);
        }
        String run = Long.toHexString(System.nanoTime());
        InterProcessMutex mutex = new InterProcessMutex(curator, "/bench/curator-" + run);
        String rawParent = "/bench/raw-" + run;
        String handParent = "/bench/by-hand-" + run;
        LeaseOptions lease = LeaseOptions.ofTtl(TTL);
        List<BenchRunner.Contender> contenders = List.of(
                new BenchRunner.Contender("bare Curator create EPHEMERAL_SEQUENTIAL + delete (floor, no lock)", (w, i) ->
                        curator.delete().forPath(curator.create().creatingParentContainersIfNeeded()
                                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(rawParent + "/n-"))),
                new BenchRunner.Contender("fencing ZooKeeperLockProvider tryAcquire + release", (w, i) ->
                        ours.tryAcquire("bench-ours-" + run, lease).orElseThrow().release()),
                new BenchRunner.Contender("by hand, unbounded release: protected create + listing + synchronous"
                        + " delete", (w, i) -> {
                            String path = curator.create().creatingParentContainersIfNeeded().withProtection()
                                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(handParent + "/n-");
                            curator.getChildren().forPath(handParent);
                            curator.delete().forPath(path);
                        }),
                new BenchRunner.Contender("Curator InterProcessMutex acquire + release", (w, i) -> {
                    mutex.acquire();
                    mutex.release();
                }));
        List<BenchRunner.Row> rows = runner.latency(contenders);
        return new Result(server, rows, CycleAccounting.of(contenders, RequestCounters.zooKeeper(connect.split(",")[0].replaceFirst("/.*$", ""))));
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
