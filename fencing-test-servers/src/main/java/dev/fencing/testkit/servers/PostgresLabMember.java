package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One PostgreSQL server of a {@link PostgresLabCluster}: a {@code postgres} child process (with
 * its backends) in its network namespace, the primary or a streaming replica of it. Which one it
 * is lives in its data, as on a real server: a replica has {@code standby.signal}. A member that
 * was the primary and is started again after another was promoted in its place is first made a
 * fresh replica of the new primary (a base backup), as an operator would: its own last writes,
 * never replicated, are gone.
 */
public final class PostgresLabMember extends ProcessLabMember {

    /** The port every member listens on, on its own address. */
    public static final int PORT = 5432;

    private final PostgresLabCluster cluster;
    private final String name;
    private final String address;
    private final Path directory;
    private final Path data;
    private final ChildProcess process;

    PostgresLabMember(NetworkLab lab, PostgresLabCluster cluster, String name, Path directory) {
        this.cluster = cluster;
        this.name = name;
        this.address = lab.add(name);
        this.directory = directory;
        this.data = directory.resolve("data");
        List<String> arguments = new ArrayList<>(List.of("-D", data.toString(), "-p", Integer.toString(PORT)));
        for (String setting : List.of("listen_addresses=" + address, "unix_socket_directories=", "wal_level=replica",
                "max_wal_senders=5", "wal_keep_size=1024", "hot_standby=on", "max_connections=200", "fsync=off",
                "shared_buffers=32MB", "log_min_messages=warning", "log_min_error_statement=panic")) {
            arguments.addAll(List.of("-c", setting));
        }
        this.process = new ChildProcess("postgres-" + name, lab.commandIn(name, PostgresBinaries.command("postgres",
                arguments)), address, PORT, Duration.ofSeconds(60));
        this.process.deleteAtExit(directory);
    }

    /** A new primary's data: {@code initdb}, and every address of the lab trusted, for replication too. */
    void initialize() {
        Path log = directory.resolve("initdb.log");
        try {
            Files.createDirectories(directory);
            Process initdb = new ProcessBuilder(PostgresBinaries.command("initdb", List.of("-D", data.toString(), "-U",
                    "postgres", "-A", "trust", "-E", "UTF-8", "--no-sync"))).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            if (!initdb.waitFor(120, TimeUnit.SECONDS) || initdb.exitValue() != 0) {
                initdb.destroyForcibly();
                throw new IllegalStateException("initdb for " + name + " failed; see " + log);
            }
            Files.writeString(data.resolve("pg_hba.conf"), String.join("\n", "host all all 0.0.0.0/0 trust",
                    "host replication all 0.0.0.0/0 trust", ""), java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot initialize " + describe(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted initializing " + describe(), e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** Its address in the lab. */
    public String address() {
        return address;
    }

    /** A JDBC URL of its {@code postgres} database, as the superuser. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + address + ":" + PORT + "/postgres?user=postgres&connectTimeout=2&socketTimeout=30";
    }

    /** A new connection to it. */
    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl());
    }

    /** Whether its data says it is a replica ({@code standby.signal}). */
    boolean isReplica() {
        return Files.exists(data.resolve("standby.signal"));
    }

    /**
     * Whether it answers in the role the cluster gives it: the primary out of recovery; a replica
     * in recovery and streaming from the primary.
     */
    public boolean isHealthy() {
        boolean primary = cluster.primary() == this;
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT pg_is_in_recovery(), (SELECT status FROM"
                        + " pg_stat_wal_receiver LIMIT 1)")) {
            row.next();
            return primary ? !row.getBoolean(1) : row.getBoolean(1) && "streaming".equals(row.getString(2));
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void awaitHealthy(Duration timeout) {
        Ports.awaitCondition(describe() + " serving", timeout, this::isHealthy,
                () -> describe() + " did not serve as " + (cluster.primary() == this ? "the primary" : "a streaming replica")
                        + " within " + timeout + "; see " + process.log());
    }

    /**
     * Starts it on its data; a former primary that another replaced is first made a replica of the
     * primary. Returns once its port is open.
     */
    @Override
    public void start() {
        cluster.beforeStart(this);
        super.start();
    }

    /** Replaces its data with {@code backup}; a backup of a primary makes it the primary again. */
    @Override
    public void restore(Path backup) {
        super.restore(backup);
        try {
            Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------")); // PostgreSQL demands it
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restrict " + data, e);
        }
        cluster.restored(this);
    }

    @Override
    ChildProcess process() {
        return process;
    }

    @Override
    Path data() {
        return data;
    }

    /** Its name, role, address and log. */
    @Override
    public String describe() {
        return "PostgreSQL " + name + " (" + (cluster.primary() == this ? "primary" : "replica") + ") at " + address
                + ":" + PORT + " (log " + process.log() + ")";
    }
}
