package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.core.FencedStore;
import dev.fencing.core.LockProvider;
import dev.fencing.core.Policy;
import dev.fencing.s3.S3ServerCheck;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The lock provider and store one command runs against, with the embedded servers it started
 * for them; closing it closes the clients and stops those servers. Each technology opens its own
 * side in a file of its own ({@link RedisBackend}, {@link SqlBackend}, {@link EtcdBackend},
 * {@link ZooKeeperBackend}, {@link DynamoDbBackend}, {@link S3Backend}, {@link AzureBlobBackend}, {@link GcsBackend});
 * this class picks them by {@link LockKind} and {@link StoreKind}.
 *
 * <p>With no connection options the CLI starts its own servers — for a Redis lock and a Redis
 * store two separate {@code redis-server} processes, so a fault injected into the lock's server
 * (a restart that loses every key) never touches the data the store keeps.
 *
 * <p>Opened {@linkplain #openReadOnly read-only} (for {@code inspect}) it writes nothing: no
 * migrations, no table or bucket created, SQL sessions set read-only; what is missing is reported
 * by {@link #lockNotSetUp()} and {@link #storeNotSetUp()} instead.
 */
public final class Backends implements AutoCloseable {

    /**
     * How long connecting to a server the user named, and each call to it, may take by default: a dead
     * address fails in seconds, not minutes ({@code --timeout} sets another).
     */
    public static final Duration CONNECT_TIMEOUT = ConnectionOptions.DEFAULT_TIMEOUT;

    private final Opening opening;
    private SqlBackend sql;
    private DynamoDbBackend dynamoDb;
    private S3Backend s3;
    private OpenedLock lock;
    private OpenedStore store;
    private Nemesis nemesis;

    /** A cluster in network namespaces for the lock, with the nemesis faults to inject into it. */
    private record ClusterRequest(int members, List<String> nemesis, long seed, boolean storeInLab) {}

    private Backends(Opening opening) {
        this.opening = opening;
    }

    /**
     * Starts or connects to the servers for {@code lock} and {@code store}.
     *
     * @throws CliException with {@link ExitCode#USAGE} for options that do not fit the kinds, or
     *     {@link ExitCode#UNREACHABLE} when a server cannot be reached
     */
    public static Backends open(LockKind lock, StoreKind store, ConnectionOptions connections) {
        return open(lock, store, connections, false, 1, null);
    }

    /** As {@link #open}, with a lock and no store ({@code leader}). */
    public static Backends openLock(LockKind lock, ConnectionOptions connections) {
        return open(lock, null, connections, false, 1, null);
    }

    /**
     * As {@link #open}, for the torture test: an embedded etcd is a 3-member cluster when
     * {@code faultNames} asks for {@value EtcdBackend#RESTART_ETCD_LEADER} (or {@code all}), so that
     * killing the leader hands the lock service to another member instead of stopping it.
     */
    public static Backends openForTorture(LockKind lock, StoreKind store, ConnectionOptions connections,
            List<String> faultNames) {
        boolean leaderFault = faultNames.contains("all") || faultNames.contains(EtcdBackend.RESTART_ETCD_LEADER);
        return open(lock, store, connections, false, lock == LockKind.ETCD && leaderFault ? 3 : 1, null);
    }

    /**
     * As {@link #open}, for the torture test on a cluster: the lock's servers are {@code members}
     * processes, each in a network namespace of its own, and {@link #faults()} are the
     * {@link Nemesis}'s {@code nemesis} faults drawn from {@code seed}. etcd only, so far.
     *
     * @throws CliException with {@link ExitCode#USAGE} for another lock, {@link ExitCode#UNREACHABLE}
     *     where namespaces cannot be made (not root, no {@code iptables})
     */
    public static Backends openOnCluster(LockKind lock, StoreKind store, ConnectionOptions connections, int members,
            List<String> nemesis, long seed) {
        return openOnCluster(lock, store, connections, members, nemesis, seed, false);
    }

    /**
     * As {@link #openOnCluster(LockKind, StoreKind, ConnectionOptions, int, List, long)}; with
     * {@code storeInLab} the store (redis only) runs on a server of its own in the cluster's
     * network lab, where client processes in namespaces of their own reach it.
     */
    public static Backends openOnCluster(LockKind lock, StoreKind store, ConnectionOptions connections, int members,
            List<String> nemesis, long seed, boolean storeInLab) {
        if (storeInLab && store != StoreKind.REDIS) {
            throw new CliException(ExitCode.USAGE, "--client-processes runs the store on a redis-server in the network"
                    + " lab, where every client process reaches it: use --store redis (the default), got --store "
                    + store.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        }
        if (lock == LockKind.DYNAMODB) {
            throw new CliException(ExitCode.USAGE, "--cluster runs etcd, ZooKeeper, Redlock, Redis with Sentinels and"
                    + " PostgreSQL so far (--cluster etcd:3, zookeeper:3, redlock:5, sentinel:3, postgres:2); a "
                    + lock.name().toLowerCase(java.util.Locale.ROOT) + " cluster in network namespaces is not built yet");
        }
        return open(lock, store, connections, false, members, new ClusterRequest(members, nemesis, seed, storeInLab));
    }

    private void adopt(Nemesis adopted, boolean clientsToCome) {
        if (clientsToCome) {
            adopted.expectClients();
        }
        nemesis = adopted;
    }

    /** Closes {@code resource} with these backends, before what was opened earlier. */
    public void closeLater(AutoCloseable resource) {
        opening.closeLater(resource);
    }

    /** The nemesis of a run {@linkplain #openOnCluster on a cluster}, if it is one. */
    public Optional<Nemesis> nemesis() {
        return Optional.ofNullable(nemesis);
    }

    /**
     * As {@link #open} (with no lock if {@code lock} is null), but writes nothing anywhere: no migrations, no
     * table or bucket created, SQL sessions read-only. A missing table or bucket is reported by
     * {@link #lockNotSetUp()} or {@link #storeNotSetUp()}, and that side's {@link #locks()} or {@link #store}
     * is then absent.
     */
    public static Backends openReadOnly(LockKind lock, StoreKind store, ConnectionOptions connections) {
        return open(lock, store, connections, true, 1, null);
    }

    private static Backends open(LockKind lock, StoreKind store, ConnectionOptions connections, boolean readOnly,
            int etcdMembers, ClusterRequest cluster) {
        connections.validate();
        Opening opening = new Opening(connections, readOnly);
        Backends backends = new Backends(opening);
        try {
            if (lock != null) {
                backends.lock = switch (lock) {
                    case REDIS -> cluster == null ? RedisBackend.lock(opening)
                            : RedisBackend.sentinelInNamespaces(opening, 2, cluster.members(), cluster.nemesis(),
                                    cluster.seed(), n -> backends.adopt(n, cluster.storeInLab()));
                    case REDLOCK -> cluster == null ? RedisBackend.redlock(opening)
                            : RedisBackend.redlockInNamespaces(opening, cluster.members(), cluster.nemesis(),
                                    cluster.seed(), n -> backends.adopt(n, cluster.storeInLab()));
                    case POSTGRES -> cluster == null ? backends.sql().lock()
                            : SqlBackend.lockInNamespaces(opening, cluster.nemesis(), cluster.seed(),
                                    n -> backends.adopt(n, cluster.storeInLab()));
                    case ETCD -> cluster == null ? EtcdBackend.lock(opening, etcdMembers)
                            : EtcdBackend.inNamespaces(opening, cluster.members(), cluster.nemesis(), cluster.seed(),
                                    n -> backends.adopt(n, cluster.storeInLab()));
                    case ZOOKEEPER -> cluster == null ? ZooKeeperBackend.lock(opening)
                            : ZooKeeperBackend.inNamespaces(opening, cluster.members(), cluster.nemesis(), cluster.seed(),
                                    n -> backends.adopt(n, cluster.storeInLab()));
                    case DYNAMODB -> backends.dynamoDb().lock();
                };
            }
            if (store != null) { // null: a lock alone
                backends.store = switch (store) {
                    case REDIS -> cluster != null && cluster.storeInLab() && backends.nemesis != null
                            ? RedisBackend.storeInLab(opening, backends.nemesis.lab()) : RedisBackend.store(opening);
                    case JDBC -> backends.sql().store();
                    case DYNAMODB -> backends.dynamoDb().store();
                    case S3 -> {
                        backends.s3 = new S3Backend(opening);
                        yield backends.s3.store();
                    }
                    case AZURE_BLOB -> AzureBlobBackend.store(opening);
                    case GCS -> GcsBackend.store(opening);
                };
            }
            return backends;
        } catch (RuntimeException e) {
            backends.close();
            throw e;
        }
    }

    /** One SQL database for a postgres lock and a jdbc store. */
    private SqlBackend sql() {
        if (sql == null) {
            sql = new SqlBackend(opening);
        }
        return sql;
    }

    /** One embedded dynalite for a dynamodb lock and store. */
    private DynamoDbBackend dynamoDb() {
        if (dynamoDb == null) {
            dynamoDb = new DynamoDbBackend(opening);
        }
        return dynamoDb;
    }

    /** The lock provider; null if read-only and {@link #lockNotSetUp()}. */
    public LockProvider locks() {
        return lock == null ? null : lock.locks();
    }

    /** Read-only: what the lock needs and this server lacks (a table), or null. */
    public String lockNotSetUp() {
        return lock == null ? null : lock.notSetUp();
    }

    /** Read-only: what the store needs and this server lacks (a table or bucket), or null. */
    public String storeNotSetUp() {
        return store == null ? null : store.notSetUp();
    }

    /**
     * For an S3 store whose bucket exists, the start-up check of the server's conditional writes and
     * metadata ({@link S3ServerCheck}, which writes and deletes one scratch object); empty otherwise.
     */
    public Optional<S3ServerCheck> checkS3Server() {
        return s3 == null ? Optional.empty() : s3.check();
    }

    /**
     * For the jdbc store: the marks {@code fencing_fence} holds under the name {@code resource}, by
     * kind — {@code lock} (the fence row of the lock so named: {@code JdbcFence}, {@code JdbiFence},
     * {@code TransactionalFence} and {@code RowGuard} raise it) and {@code row} (the row guard's
     * entry, for a name like {@code <schema>.<table>:<key>}). Empty for other stores or without the
     * table. Read-only.
     */
    public Map<String, Long> fenceMarks(String resource) {
        return sql == null ? Map.of() : sql.fenceMarks(resource);
    }

    /** A fenced store under {@code policy}. */
    public FencedStore store(Policy policy) {
        return store.stores().create(policy);
    }

    /** The same storage, unfenced. */
    public PlainStore plainStore() {
        return store.plain();
    }

    /** Where the lock lives, in words. */
    public String lockDescription() {
        return lock == null ? null : lock.description();
    }

    /** What the tokens of this run's lock are, in words. */
    public String tokenNote() {
        return lock == null ? null : lock.tokenNote();
    }

    /** Where the store lives, in words. */
    public String storeDescription() {
        return store == null ? null : store.description();
    }

    /** Whether the store lives on a server this run started (and so holds nothing from before). */
    public boolean embeddedStore() {
        return store != null && store.embedded();
    }

    /** The faults that can be injected: only into servers this run started. */
    public List<Fault> faults() {
        return lock == null ? List.of() : lock.faults();
    }

    @Override
    public void close() {
        opening.close();
    }
}
