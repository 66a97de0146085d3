package dev.fencing.jdbc;

import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.SqlTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One fresh database per server per test JVM, with the toolkit's migrations applied and the
 * tables the tests write: {@code accounts} (id, balance, fencing_token), {@code guarded_kv}
 * (a key-value table with a token column) and {@code plain_kv} (the same without one), both keyed
 * by text that compares exactly; and tables keyed the ways a database can alias keys:
 * {@code ci_kv} (case-insensitive), {@code pad_kv} (trailing spaces ignored), {@code uuid_kv},
 * {@code pairs} (a composite key), and {@code checked} (a CHECK and a second unique column).
 */
final class Databases {

    private static final Map<String, DataSource> MIGRATED = new HashMap<>();
    private static final Pattern HOST_AND_PORT = Pattern.compile("(jdbc:[a-z]+://)([^:/]+):(\\d+)(/.*)");

    private Databases() {}

    static SqlTestServer postgres() {
        return TestServers.postgres();
    }

    static SqlTestServer mariaDb() {
        return TestServers.mariaDb();
    }

    /** The migrated database of {@code server}, its connections at {@code isolation}. */
    static DataSource migrated(SqlTestServer server, int isolation) {
        return new IsolatedDataSource(migrated(server), isolation);
    }

    private static final Map<String, DataSource> POOLED = new HashMap<>();

    /**
     * The migrated database as the store contracts' stores get it: PostgreSQL through one HikariCP
     * pool per test JVM, as applications reach it (a new PostgreSQL connection is a forked backend,
     * about 100 ms on a loaded 2-core machine: the contracts' 450-call sequence case took 40-60 s
     * a run with a connection per call, which made fencing-jdbc the build's longest module); MariaDB
     * directly, a connection per call, so that both ways stay covered.
     */
    static synchronized DataSource forStores(SqlTestServer server) {
        if (!server.vendor().equals("postgresql")) {
            return migrated(server);
        }
        return POOLED.computeIfAbsent(server.vendor(), vendor -> {
            com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
            config.setDataSource(migrated(server));
            config.setPoolName("contract-" + vendor);
            config.setMaximumPoolSize(48); // classes run in parallel, each case with up to 8 writers at once
            config.setMinimumIdle(0);
            config.setConnectionTimeout(60_000);
            return new com.zaxxer.hikari.HikariDataSource(config);
        });
    }

    /** {@link #forStores(SqlTestServer)}, its connections at {@code isolation}. */
    static DataSource forStores(SqlTestServer server, int isolation) {
        return new IsolatedDataSource(forStores(server), isolation);
    }

    /** The migrated MariaDB database reached through a URL with extra driver {@code parameters}. */
    static DataSource mariaDbWith(String parameters) {
        DataSource db = migrated(mariaDb());
        try (Connection connection = db.getConnection()) {
            String url = TestServers.mariaDb().jdbcUrl().replaceFirst("(jdbc:mariadb://[^/]+/)[^?]*", "$1"
                    + connection.getCatalog());
            return new MariaDbDataSource(url + (url.contains("?") ? "&" : "?") + parameters);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the test database on " + mariaDb(), e);
        }
    }

    /** A proxy in front of the server of {@code database} (a data source of this class). */
    static ReplyDroppingProxy proxyTo(DataSource database) {
        Matcher url = hostAndPort(urlOf(database));
        return ReplyDroppingProxy.start(url.group(2), Integer.parseInt(url.group(3)));
    }

    /** {@code database}, credentials and all, reached through {@code proxy}. */
    static DataSource through(ReplyDroppingProxy proxy, DataSource database) {
        Matcher url = hostAndPort(urlOf(database));
        String viaProxy = url.group(1) + "127.0.0.1:" + proxy.port() + url.group(4);
        if (database instanceof PGSimpleDataSource direct) {
            PGSimpleDataSource postgres = new PGSimpleDataSource();
            postgres.setURL(viaProxy);
            postgres.setUser(direct.getUser());
            postgres.setPassword(direct.getPassword());
            return postgres;
        }
        try {
            return new MariaDbDataSource(viaProxy);
        } catch (SQLException e) {
            throw new IllegalStateException("not a MariaDB URL: " + viaProxy, e);
        }
    }

    private static String urlOf(DataSource database) {
        if (database instanceof PGSimpleDataSource postgres) {
            return postgres.getURL();
        }
        if (database instanceof MariaDbDataSource mariaDb) {
            return mariaDb.getUrl();
        }
        throw new IllegalArgumentException("not a data source of the test servers: " + database);
    }

    private static Matcher hostAndPort(String jdbcUrl) {
        Matcher url = HOST_AND_PORT.matcher(jdbcUrl);
        if (!url.matches()) {
            throw new IllegalStateException("cannot find host and port in " + jdbcUrl.replaceAll("password=[^&]*",
                    "password=***"));
        }
        return url;
    }

    static synchronized DataSource migrated(SqlTestServer server) {
        return MIGRATED.computeIfAbsent(server.vendor(), vendor -> {
            DataSource db = server.freshDatabase();
            FencingMigrations.migrate(db);
            boolean postgres = server.vendor().equals("postgresql");
            String exact = postgres ? "VARCHAR(256)" : "VARCHAR(256) COLLATE utf8mb4_nopad_bin";
            String token = " fencing_token BIGINT NOT NULL DEFAULT 0";
            try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL," + token + ")");
                statement.execute("CREATE TABLE guarded_kv (k " + exact + " PRIMARY KEY, v TEXT, version BIGINT NOT NULL,"
                        + token + ")");
                statement.execute("CREATE TABLE plain_kv (k " + exact + " PRIMARY KEY, v TEXT, version BIGINT NOT NULL)");
                statement.execute("CREATE TABLE unfenced (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
                if (postgres) {
                    statement.execute("CREATE COLLATION ignore_case (provider = icu, locale = 'und-u-ks-level2',"
                            + " deterministic = false)");
                }
                statement.execute("CREATE TABLE ci_kv (k VARCHAR(100) " + (postgres ? "COLLATE ignore_case " : "")
                        + "PRIMARY KEY, v TEXT," + token + ")"); // MariaDB: the database default, utf8mb4_general_ci
                statement.execute("CREATE TABLE pad_kv (k " + (postgres ? "CHAR(20)" : "VARCHAR(100) COLLATE utf8mb4_bin")
                        + " PRIMARY KEY, v TEXT," + token + ")");
                statement.execute("CREATE TABLE uuid_kv (id UUID PRIMARY KEY, v TEXT," + token + ")");
                statement.execute("CREATE TABLE pairs (a " + exact + " NOT NULL, b " + exact + " NOT NULL, v TEXT," + token
                        + ", PRIMARY KEY (a, b))");
                statement.execute("CREATE TABLE checked (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL CHECK (balance >= 0),"
                        + " email VARCHAR(100) UNIQUE," + token + ")");
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create the test tables on " + server, e);
            }
            return db;
        });
    }
}
