package dev.fencing.postgres;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.AbstractLockProvider;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.ProviderBuilder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL session advisory locks whose grants carry durable fencing tokens.
 *
 * <p>Each lease borrows a dedicated connection from the {@link DataSource} and keeps it until
 * release. Acquire is one statement: {@code pg_try_advisory_lock} on {@link AdvisoryKeys#of(String)}
 * and, only if taken, {@code idle_session_timeout} set to the TTL and the upsert of the resource's
 * counter to {@code max(counter + 1, clock_timestamp() in µs)}, committed durably before the lease
 * is handed out. So tokens strictly increase per resource across crashes, restarts and failovers,
 * and by the clock also when the counter comes back lower, while the server's clock does not go
 * back by more than the time that passed.
 *
 * <p>What can go wrong: the TTL is the server's idle bound, so a holder that pauses, is
 * partitioned or dies loses the lock one TTL after its last renewal and must rely on the store's
 * token check; holders that fill the pool and then need it for their fenced writes wait for a
 * connection only their own release would free. Behind PgBouncer in transaction pooling mode
 * session locks leak to other clients: use {@link TransactionLocks} there.
 *
 * <p>Needs PostgreSQL 14 or newer and the {@code fencing_token_counter} table from the migrations
 * module. Thread-safe; not reentrant (a second acquire from the same provider waits like any
 * other). The algorithm, waiting, the pool and outages are in {@code docs/postgres.md}.
 */
public final class PostgresAdvisoryLockProvider extends AbstractLockProvider {

    /** The least time an attempt waits for a pooled connection, even when the wait timeout has run out. */
    public static final Duration MIN_BORROW_WAIT = Duration.ofMillis(100);

    /**
     * The least time the acquire statement may take, even when the wait timeout has run out: its
     * network timeout is the time left until the deadline, but at least this. A server that does
     * not answer within it costs that connection (closed, so the server ends the session and any
     * lock it took) and the attempt fails with {@link LockUnavailableException}.
     */
    public static final Duration MIN_STATEMENT_WAIT = Duration.ofSeconds(1);

    /** How long {@link #inspect} (and so a health check) waits for a pooled connection, and then for its query. */
    public static final Duration INSPECT_WAIT = Duration.ofSeconds(1);

    private static final String POOL_ADVICE = "every held session lock keeps one connection of the pool until it is"
            + " released, so a pool no larger than the leases held at once (plus the connections their own work needs)"
            + " runs dry; size the pool for that, or give the provider a pool of its own";

    private final DataSource dataSource;
    private final BoundedBorrow pool;
    private final AtomicInteger heldConnections = new AtomicInteger();
    private final String counterTable;
    private final String trySessionLock;

    private PostgresAdvisoryLockProvider(Builder builder) {
        super(builder, "fencing-postgres-async");
        this.dataSource = builder.dataSource;
        this.pool = new BoundedBorrow(dataSource);
        this.counterTable = builder.counterTable;
        this.trySessionLock = CounterSql.trySessionLock(counterTable);
    }

    /** A builder over {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Checks.requireNonNull("dataSource", dataSource));
    }

    /** A provider with the defaults over {@code dataSource}. */
    public static PostgresAdvisoryLockProvider create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        return attempt(resource, options, requestedAtNanos, requestedAtNanos + options.waitTimeout().toNanos());
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos,
            long deadlineNanos) {
        long key = AdvisoryKeys.of(resource);
        Optional<Connection> borrowed = borrow(resource, deadlineNanos, options.waitTimeout());
        if (borrowed.isEmpty()) {
            return Optional.empty(); // interrupted while waiting for the pool; the interrupt status is kept
        }
        Connection connection = borrowed.get();
        try {
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
            }
            boolean taken;
            OptionalLong token;
            String previousIdleBound;
            // bound the statement by the acquire's deadline: a server that stopped answering costs the
            // caller its wait timeout (at least a second), not forever; the broken connection is abandoned
            int previousNetworkTimeout = connection.getNetworkTimeout();
            connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, Math.max(
                    MIN_STATEMENT_WAIT.toMillis(), (deadlineNanos - clock().nanoTime()) / 1_000_000)));
            try (PreparedStatement statement = connection.prepareStatement(trySessionLock)) {
                statement.setLong(1, key);
                statement.setString(2, Long.toString(options.ttl().toMillis()));
                statement.setString(3, resource);
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    taken = row.getBoolean(1);
                    long value = row.getLong(2);
                    token = row.wasNull() ? OptionalLong.empty() : OptionalLong.of(value);
                    previousIdleBound = row.getString(3);
                }
            }
            connection.setNetworkTimeout(Runnable::run, previousNetworkTimeout);
            if (!taken) {
                connection.close();
                return Optional.empty();
            }
            if (token.isEmpty()) {
                // a trigger or rule on the counter table swallowed the upsert: never hand the pool a locked session
                giveBack(connection, key, previousIdleBound);
                throw new IllegalStateException("the counter upsert into '" + counterTable + "' returned no token for '"
                        + resource + "' (a trigger or rule on the table?); the lock was released again");
            }
            return Optional.of(new SessionLease(FencingToken.of(resource, token.getAsLong()), requestedAtNanos,
                    options.ttl(), connection, key, previousIdleBound));
        } catch (SQLException e) {
            abandon(connection);
            throw unavailable(resource, "the acquire statement", e);
        }
    }

    /**
     * The holder's backend pid and the last token of {@code resource}. Bounded: the borrow waits at
     * most {@link #INSPECT_WAIT}, and so does the query; a database that does not answer is a
     * {@link LockUnavailableException} saying so, with the driver's reason once the pool has one
     * (which is what a health check reports).
     */
    @Override
    public Optional<LockState> inspect(String resource) {
        Checks.requireName("resource", resource);
        long key = AdvisoryKeys.of(resource);
        Connection borrowed = borrow(resource, clock().nanoTime() + INSPECT_WAIT.toNanos(), INSPECT_WAIT)
                .orElseThrow(() -> LockUnavailableException.unreachable(resource, "interrupted while inspecting", null));
        try (Connection connection = borrowed) {
            int previousNetworkTimeout = connection.getNetworkTimeout();
            connection.setNetworkTimeout(Runnable::run, (int) INSPECT_WAIT.toMillis());
            try (PreparedStatement statement = connection.prepareStatement(CounterSql.inspect(counterTable))) {
                statement.setLong(1, CounterSql.high(key));
                statement.setLong(2, CounterSql.low(key));
                statement.setString(3, resource);
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    long pid = row.getLong(1);
                    Optional<String> holder = row.wasNull() ? Optional.empty() : Optional.of("backend pid " + pid);
                    long token = row.getLong(2);
                    OptionalLong lastToken = row.wasNull() ? OptionalLong.empty() : OptionalLong.of(token);
                    // the server knows no TTL of its own: the idle bound restarts with every statement of the holder
                    return Optional.of(new LockState(resource, holder, Duration.ZERO, lastToken));
                }
            } finally {
                if (!connection.isClosed()) { // a connection that timed out is closed and discarded by the pool
                    connection.setNetworkTimeout(Runnable::run, previousNetworkTimeout);
                }
            }
        } catch (SQLException e) {
            throw unavailable(resource, "pg_locks", e);
        }
    }

    /**
     * A connection from the pool, waiting at most until {@code deadlineNanos} (but at least
     * {@link #MIN_BORROW_WAIT}, so that a zero wait timeout can still borrow from a pool with a
     * free connection), on the caller's thread ({@link BoundedBorrow}).
     *
     * @return empty if the calling thread was interrupted (its interrupt status is set again)
     */
    private Optional<Connection> borrow(String resource, long deadlineNanos, Duration waitTimeout) {
        long bound = Math.max(deadlineNanos - clock().nanoTime(), MIN_BORROW_WAIT.toNanos());
        try {
            return Optional.of(pool.borrow(bound));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (BoundedBorrow.TimedOut e) {
            throw LockUnavailableException.unreachable(resource, noConnectionWithin(waitTimeout), null);
        } catch (SQLException e) {
            throw LockUnavailableException.unreachable(resource, poolFailed(e), e);
        }
    }

    /** Why no connection came within the wait: what the pool last failed with says which of the two it is. */
    private String noConnectionWithin(Duration waitTimeout) {
        String within = "no pooled connection came within the wait timeout (" + waitTimeout.toMillis() + " ms; this"
                + " provider's leases hold " + heldConnections.get() + " of the pool's connections)";
        Optional<String> refused = pool.lastFailure().flatMap(failure -> BoundedBorrow.connectFailure(failure.error())
                .map(reason -> reason + ", at " + failure.at()));
        if (refused.isPresent()) {
            return within + ": PostgreSQL did not answer the pool's last attempt to connect: " + refused.get();
        }
        return within + ": either " + POOL_ADVICE + ", or the pool cannot reach PostgreSQL (it keeps trying until its own"
                + " timeout; the pool's answer is reported by the next acquire that fails)";
    }

    private static String poolFailed(SQLException e) {
        return BoundedBorrow.connectFailure(e)
                .map(reason -> "PostgreSQL did not answer a new connection: " + reason)
                .orElseGet(() -> "the pool gave no connection (" + e.getMessage() + ", SQLState " + e.getSQLState()
                        + "): either PostgreSQL is unreachable or " + POOL_ADVICE);
    }

    /** Unlocks {@code key}, restores the idle bound and closes; false if the session did not hold the key. */
    private static boolean giveBack(Connection connection, long key, String previousIdleBound) {
        boolean held;
        try (PreparedStatement statement = connection.prepareStatement(CounterSql.RELEASE)) {
            statement.setLong(1, key);
            statement.setString(2, previousIdleBound);
            try (ResultSet row = statement.executeQuery()) {
                held = row.next() && row.getBoolean(1);
            }
        } catch (SQLException e) {
            abandon(connection);
            return false;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            // the release was done; a pool that cannot take the connection back discards it
        }
        return held;
    }

    /** Drops every lock of the session and closes; a session that cannot be cleaned is aborted, never pooled. */
    private static void abandon(Connection connection) {
        try (PreparedStatement unlock = connection.prepareStatement(CounterSql.UNLOCK_ALL)) {
            unlock.execute();
            connection.close();
        } catch (SQLException | RuntimeException e) {
            try {
                connection.abort(Runnable::run); // a pool evicts an aborted connection; its session ends with it
            } catch (SQLException | RuntimeException ignored) {
                // already gone: a dead session holds no locks
            }
        }
    }

    private LockUnavailableException unavailable(String resource, String what, SQLException e) {
        if ("42P01".equals(e.getSQLState())) {
            throw new IllegalStateException("table '" + counterTable + "' does not exist: run"
                    + " FencingMigrations.migrate(dataSource) from the 'migrations' module", e);
        }
        return LockUnavailableException.unreachable(resource, "PostgreSQL did not answer " + what + ": "
                + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }

    @Override
    protected void doClose() {
        // each lease returns its connection to the caller's pool; only the alarm and probe threads are ours
        pool.close();
    }

    /** A session lock: the lease owns its connection until release. */
    private final class SessionLease extends AbstractLease {
        private final Connection connection;
        private final long key;
        private final String previousIdleBound;

        SessionLease(FencingToken token, long requestedAtNanos, Duration ttl, Connection connection, long key,
                String previousIdleBound) {
            super(token, OwnerIds.random(), requestedAtNanos, ttl, clock(), listener());
            this.connection = connection;
            this.key = key;
            this.previousIdleBound = previousIdleBound;
            heldConnections.incrementAndGet();
        }

        @Override
        protected boolean doRenew(Duration ttl) {
            synchronized (connection) {
                try {
                    // a stalled server must not hold the renewal past a third of the TTL: the socket gives
                    // up then and the connection is closed, which ends the session and its lock (a query
                    // timeout alone would wait for a server that never reads the cancel request)
                    int previousNetworkTimeout = connection.getNetworkTimeout();
                    connection.setNetworkTimeout(Runnable::run, (int) Math.max(1, ttl.dividedBy(3).toMillis()));
                    try (PreparedStatement statement = connection.prepareStatement(CounterSql.RENEW)) {
                        statement.setString(1, Long.toString(ttl.toMillis()));
                        statement.setLong(2, CounterSql.high(key));
                        statement.setLong(3, CounterSql.low(key));
                        try (ResultSet row = statement.executeQuery()) {
                            return row.next() && row.getBoolean(2);
                        }
                    } finally {
                        // the connection goes back to the pool at release: never with the renewal's bound
                        if (!connection.isClosed()) {
                            connection.setNetworkTimeout(Runnable::run, previousNetworkTimeout);
                        }
                    }
                } catch (SQLException e) {
                    // the session is gone (terminated backend, dropped connection, idle timeout, a server
                    // silent past the renewal's deadline): so is the lock
                    return false;
                }
            }
        }

        @Override
        protected boolean doRelease() {
            synchronized (connection) {
                try {
                    return giveBack(connection, key, previousIdleBound);
                } finally {
                    heldConnections.decrementAndGet();
                    releaseSignals().signal(resource());
                }
            }
        }
    }

    /** Configures a {@link PostgresAdvisoryLockProvider}; every setting but the data source is optional. */
    public static final class Builder extends ProviderBuilder<Builder> {
        private final DataSource dataSource;
        private String counterTable = "fencing_token_counter";
        private Duration connectTimeout = Duration.ofSeconds(10);

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /** The token counter table (columns as {@code fencing_token_counter}); default {@code fencing_token_counter}. */
        public Builder table(String table) {
            this.counterTable = CounterSql.requireTable(table);
            return this;
        }

        /**
         * How long {@code build()} waits for a connection and the answer to its check of the server
         * and the counter table; default 10 s, 100 ms to 5 min.
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Checks.requireBetween("connectTimeout", connectTimeout, Duration.ofMillis(100),
                    Duration.ofMinutes(5));
            return this;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * Checks the server (PostgreSQL 14 or newer) and the counter table, then builds. The check
         * — borrowing a connection and one query — runs on a helper thread and is awaited at most
         * {@link #connectTimeout}: a {@code DataSource} whose {@code getConnection()} ignores
         * interrupts (a plain driver data source blocked on a silent server) is bounded too. Such a
         * helper thread may stay blocked until the driver's own timeouts end it (pgJDBC's
         * {@code loginTimeout}, {@code socketTimeout}).
         *
         * @throws IllegalStateException if the server is too old or the counter table is missing
         * @throws LockUnavailableException if the database cannot be reached, or does not answer
         *     within the connect timeout (naming the data source and the bound)
         */
        public PostgresAdvisoryLockProvider build() {
            String provider = "Postgres advisory lock provider on " + dataSource.getClass().getSimpleName();
            FutureTask<Void> preflight = new FutureTask<>(this::preflight);
            Thread helper = new Thread(preflight, "fencing-postgres-preflight");
            helper.setDaemon(true);
            helper.start();
            try {
                preflight.get(connectTimeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                preflight.cancel(true);
                throw LockUnavailableException.providerUnavailable(provider, "PostgreSQL did not answer within"
                        + " connectTimeout " + connectTimeout.toMillis() + " ms (no connection from the data source, or"
                        + " no reply to the check of the server and the counter table)", null);
            } catch (InterruptedException e) {
                preflight.cancel(true);
                Thread.currentThread().interrupt();
                throw LockUnavailableException.providerUnavailable(provider, "interrupted while connecting", e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof SQLException sql) {
                    throw LockUnavailableException.unreachable("*", "cannot reach PostgreSQL: " + sql.getMessage(), sql);
                }
                throw e.getCause() instanceof RuntimeException runtime ? runtime
                        : new IllegalStateException(e.getCause());
            }
            return new PostgresAdvisoryLockProvider(this);
        }

        private @Nullable Void preflight() throws SQLException {
            try (Connection connection = dataSource.getConnection()) {
                int previous = connection.getNetworkTimeout();
                connection.setNetworkTimeout(Runnable::run, (int) connectTimeout.toMillis());
                try (PreparedStatement statement = connection.prepareStatement(CounterSql.PREFLIGHT)) {
                    statement.setString(1, counterTable);
                    try (ResultSet row = statement.executeQuery()) {
                        row.next();
                        int version = row.getInt(1);
                        if (version < 140000) {
                            throw new IllegalStateException("PostgreSQL " + version / 10000 + " is too old: leases rely"
                                    + " on idle_session_timeout, which needs PostgreSQL 14 or newer");
                        }
                        if (!row.getBoolean(2)) {
                            throw new IllegalStateException("table '" + counterTable + "' does not exist: run"
                                    + " FencingMigrations.migrate(dataSource) from the 'migrations' module first");
                        }
                    }
                } finally {
                    connection.setNetworkTimeout(Runnable::run, previous);
                }
            }
            return null;
        }
    }
}
