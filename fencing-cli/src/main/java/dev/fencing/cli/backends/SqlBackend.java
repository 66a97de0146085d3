package dev.fencing.cli.backends;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.core.LockProvider;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.testkit.servers.NetworkLab;
import dev.fencing.testkit.servers.PostgresLabCluster;
import dev.fencing.testkit.servers.PostgresTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * SQL for a CLI run: the postgres advisory lock and the jdbc store, on {@code --pg-url} or on one
 * embedded PostgreSQL that lock and store share; migrated unless read-only, when every session is
 * set read-only on the server.
 */
final class SqlBackend {

    private static final String OPTIONS = "--pg-url or FENCING_PG_URL";

    private final Opening opening;
    private Database database;
    /** The database of the jdbc store, when it is the store. */
    private Database storeDatabase;

    SqlBackend(Opening opening) {
        this.opening = opening;
    }

    OpenedLock lock() {
        Database db = database();
        String description = "postgres advisory lock on " + db.description();
        String tokenNote = "the fencing_token_counter row +1 per grant, committed before the lease is handed out";
        if (!db.postgres()) {
            throw new CliException(ExitCode.USAGE, "--lock postgres needs a PostgreSQL database: --pg-url starts"
                    + " jdbc:postgresql:, got " + db.description());
        }
        if (opening.readOnly && !tableExists(db, "fencing_token_counter")) {
            return OpenedLock.notSetUp(description, tokenNote,
                    "table fencing_token_counter (the postgres lock's token counter) is missing");
        }
        LockProvider locks;
        try {
            locks = PostgresAdvisoryLockProvider.builder(db.dataSource()).clock(opening.clock).connectTimeout(opening.timeout).build();
        } catch (RuntimeException e) {
            throw Opening.unreachable("PostgreSQL for the lock (" + db.description() + ")", OPTIONS, e);
        }
        opening.closeLater(locks);
        List<Fault> faults = db.embedded()
                ? List.of(new Fault("terminate-lock-backends", "terminate the PostgreSQL backends holding advisory"
                        + " locks", () -> terminateAdvisoryHolders(db.dataSource())))
                : List.of();
        return new OpenedLock(locks, description, tokenNote, faults);
    }

    /**
     * The postgres advisory lock on a primary and its streaming replica, each in a network
     * namespace of its own; the jdbc store, if it is the store, stays on a server of its own. The
     * lock connects to whichever member is the primary now.
     */
    static OpenedLock lockInNamespaces(Opening opening, List<String> nemesisNames, long seed,
            java.util.function.Consumer<Nemesis> nemesisOut) {
        NetworkLab lab = Nemesis.openLab(opening);
        PostgresLabCluster cluster = Opening.started("a PostgreSQL primary and a streaming replica in network namespaces",
                OPTIONS, () -> PostgresLabCluster.launchIn(lab));
        opening.closeLater(cluster);
        Nemesis nemesis = new Nemesis(lab, cluster, seed);
        nemesisOut.accept(nemesis);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(cluster.jdbcUrl());
        config.setMaximumPoolSize(80);
        config.setMinimumIdle(0);
        config.setPoolName("fencing-cli-cluster");
        config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
        config.setInitializationFailTimeout(-1);
        HikariDataSource pool = new HikariDataSource(config);
        opening.closeLater(pool::close);
        LockProvider locks;
        try {
            FencingMigrations.migrate(pool);
            locks = PostgresAdvisoryLockProvider.builder(pool).clock(opening.clock).connectTimeout(opening.timeout).build();
        } catch (RuntimeException e) {
            throw Opening.unreachable("the PostgreSQL primary in the lab (" + cluster.describe() + ")", OPTIONS, e);
        }
        opening.closeLater(locks);
        return new OpenedLock(locks, "postgres advisory lock on a primary and a streaming replica (asynchronous, promoted"
                + " by the nemesis when the primary dies), each in a network namespace of its own ("
                + cluster.jdbcUrl() + ")", "max(counter + 1, the server's clock in µs) per grant: a promoted replica"
                        + " that missed the last grants is overtaken by the clock", nemesis.faults(nemesisNames));
    }

    OpenedStore store() {
        Database db = database();
        storeDatabase = db;
        String description = "jdbc store on " + db.description();
        OpenedStore.Factory stores = policy -> JdbcFencedStore.builder(db.dataSource()).policy(policy).build();
        if (opening.readOnly) {
            if (!tableExists(db, JdbcFencedStore.DEFAULT_TABLE)) {
                return OpenedStore.notSetUp(description, db.embedded(),
                        "table " + JdbcFencedStore.DEFAULT_TABLE + " (the jdbc store's) is missing");
            }
            return new OpenedStore(stores, null, description, db.embedded());
        }
        PlainStore plain;
        try {
            plain = SqlPlainStore.create(db.dataSource());
        } catch (RuntimeException e) {
            throw Opening.unreachable("the database for the jdbc store (" + db.description() + ")", OPTIONS, e);
        }
        return new OpenedStore(stores, plain, description, db.embedded());
    }

    /**
     * For the jdbc store: the marks {@code fencing_fence} holds under the name {@code resource}, by
     * kind (see {@link Backends#fenceMarks}). Empty for other stores or without the table. Read-only.
     */
    Map<String, Long> fenceMarks(String resource) {
        Database db = storeDatabase;
        if (db == null || !tableExists(db, "fencing_fence")) {
            return Map.of();
        }
        Map<String, Long> marks = new TreeMap<>();
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT kind, token FROM fencing_fence WHERE resource = ?")) {
            statement.setString(1, resource);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    marks.put(rows.getString(1), rows.getLong(2));
                }
            }
        } catch (SQLException e) {
            throw Opening.unreachable("the database for the jdbc store (" + db.description() + ")", OPTIONS, e);
        }
        return marks;
    }

    private static void terminateAdvisoryHolders(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                    + " AND pid <> pg_backend_pid()");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot terminate the advisory lock holders: " + e.getMessage(), e);
        }
    }

    /**
     * The SQL database of this run: from --pg-url, or one embedded PostgreSQL shared by lock and
     * store; migrated unless read-only.
     */
    private Database database() {
        if (database != null) {
            return database;
        }
        Optional<String> configured = opening.connections.jdbcUrl();
        if (configured.isEmpty()) {
            PostgresTestServer server = PostgresTestServer.launch();
            opening.closeLater(server::stop);
            database = new Database(pooled(server.dataSource(), true), "an embedded PostgreSQL at "
                    + UrlDataSource.redacted(server.jdbcUrl()), true, true);
        } else {
            String url = opening.tls.jdbcUrl(configured.get());
            UrlDataSource target = new UrlDataSource(url, opening.timeout);
            // one connection first, straight from the driver: its own reason, at once, rather than a pool's timeout
            try (Connection probe = target.getConnection()) {
                probe.isValid(1);
            } catch (SQLException e) {
                throw Opening.unreachable("the database at " + UrlDataSource.redacted(url), OPTIONS, e);
            }
            database = new Database(pooled(target, target.postgres()), UrlDataSource.redacted(url), false,
                    target.postgres());
        }
        if (!opening.readOnly) {
            try {
                FencingMigrations.migrate(database.dataSource());
            } catch (RuntimeException e) {
                throw Opening.unreachable("the database at " + database.description(), OPTIONS, e);
            }
        }
        return database;
    }

    /**
     * A HikariCP pool: a lease keeps a connection, so allow one per worker and some to spare. A
     * borrow waits at most 10 s; read-only, every session is set read-only on the server.
     */
    private DataSource pooled(DataSource target, boolean postgres) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(target);
        config.setMaximumPoolSize(80);
        config.setMinimumIdle(0);
        config.setPoolName("fencing-cli");
        config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
        config.setInitializationFailTimeout(-1); // connection failures surface at first use, with our message
        if (opening.readOnly) {
            config.setReadOnly(true);
            config.setConnectionInitSql(postgres ? "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"
                    : "SET SESSION TRANSACTION READ ONLY");
        }
        HikariDataSource pool = new HikariDataSource(config);
        opening.closeLater(pool::close);
        return pool;
    }

    private record Database(DataSource dataSource, String description, boolean embedded, boolean postgres) {}

    private static boolean tableExists(Database database, String table) {
        try {
            return SqlTables.exists(database.dataSource(), table);
        } catch (SQLException e) {
            throw Opening.unreachable("the database at " + database.description(), OPTIONS, e);
        }
    }
}
