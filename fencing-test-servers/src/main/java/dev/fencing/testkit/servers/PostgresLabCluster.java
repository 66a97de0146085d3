package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A PostgreSQL primary with a streaming replica, each a {@link PostgresLabMember} in a network
 * namespace of its own in a {@link NetworkLab}, named {@code pg1} (the first primary) and
 * {@code pg2}. Replication is asynchronous, PostgreSQL's default: a commit returns once the
 * primary has it, so a replica promoted after the primary died can miss the last commits. Nothing
 * here fails over by itself, as nothing does in PostgreSQL: {@link #promoteReplica} is the
 * operator's (or Patroni's) promotion, and the old primary, started again, becomes a replica of
 * the new one from a fresh base backup. Not shared: each run launches its own and closes it.
 */
public final class PostgresLabCluster implements LabCluster {

    private static final Set<String> NOT_COPIED = Set.of("postmaster.pid", "postmaster.opts", "standby.signal",
            "backup_label", "tablespace_map");

    private final List<PostgresLabMember> members;
    private volatile PostgresLabMember primary;

    private PostgresLabCluster(NetworkLab lab, Path root) {
        this.members = List.of(new PostgresLabMember(lab, this, "pg1", root.resolve("pg1")),
                new PostgresLabMember(lab, this, "pg2", root.resolve("pg2")));
        this.primary = members.get(0);
    }

    /**
     * Starts the primary {@code pg1} and its replica {@code pg2} in {@code lab}; returns once the
     * replica streams.
     */
    public static PostgresLabCluster launchIn(NetworkLab lab) {
        PostgresLabCluster cluster;
        try {
            Path root = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                    "fencing-testkit")), "postgres-lab-");
            cluster = new PostgresLabCluster(lab, root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the PostgreSQL lab's directories", e);
        }
        try {
            PostgresLabMember first = cluster.members.get(0);
            first.initialize();
            first.start();
            first.awaitHealthy(Duration.ofSeconds(60));
            PostgresLabMember replica = cluster.members.get(1);
            replica.start();
            replica.awaitHealthy(Duration.ofSeconds(60));
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    @Override
    public List<PostgresLabMember> members() {
        return members;
    }

    /** The member the cluster takes for the primary: {@code pg1} until a promotion or a restore says otherwise. */
    public PostgresLabMember primary() {
        return primary;
    }

    /** One primary, which the others follow. */
    @Override
    public boolean electsLeader() {
        return true;
    }

    /** The primary, once it serves as one. */
    @Override
    public LabMember awaitLeader(Duration timeout) {
        PostgresLabMember current = primary;
        current.awaitHealthy(timeout);
        return current;
    }

    /** A failed primary is replaced by promoting its replica: nothing elects one. */
    @Override
    public boolean promotesReplicas() {
        return true;
    }

    /**
     * Promotes the running replica ({@code pg_promote}) and takes it for the primary from then on;
     * returns once it accepts writes.
     *
     * @throws IllegalStateException if no replica is running, or it does not leave recovery in time
     */
    @Override
    public PostgresLabMember promoteReplica(Duration timeout) {
        PostgresLabMember replica = members.stream().filter(m -> m != primary && m.isRunning()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no running replica to promote: " + describe()));
        try (Connection connection = replica.connect(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT pg_promote(true, " + Math.max(1, timeout.toSeconds())
                        + ")")) {
            row.next();
            if (!row.getBoolean(1)) {
                throw new IllegalStateException("pg_promote did not finish within " + timeout + ": " + replica.describe());
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot promote " + replica.describe() + ": " + e.getMessage(), e);
        }
        primary = replica;
        replica.awaitHealthy(timeout);
        return replica;
    }

    /** Before a member starts: a former primary that another replaced becomes a replica of the primary first. */
    void beforeStart(PostgresLabMember member) {
        if (member != primary && !member.isReplica()) {
            baseBackup(primary, member);
        }
    }

    /** After a member's data was restored: a backup of a primary makes it the primary again. */
    void restored(PostgresLabMember member) {
        if (!member.isReplica()) {
            primary = member;
        }
    }

    /**
     * Makes {@code target}'s data a fresh replica of the running {@code source}: PostgreSQL's
     * low-level base backup ({@code pg_backup_start}, a copy of the live files, the backup label of
     * {@code pg_backup_stop}), then {@code standby.signal} and the primary's address. The replica
     * streams the WAL since the backup's start from the primary ({@code wal_keep_size}).
     */
    private static void baseBackup(PostgresLabMember source, PostgresLabMember target) {
        try (Connection connection = source.connect(); Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_backup_start('fencing-lab-" + target.name() + "', true)");
            DataDirectories.delete(target.data());
            copyLive(source.data(), target.data());
            String label;
            try (ResultSet row = statement.executeQuery("SELECT labelfile FROM pg_backup_stop(false)")) {
                row.next();
                label = row.getString(1);
            }
            Files.writeString(target.data().resolve("backup_label"), label);
            Files.writeString(target.data().resolve("standby.signal"), "");
            Files.writeString(target.data().resolve("postgresql.auto.conf"), "\nprimary_conninfo = 'host="
                    + source.address() + " port=" + PostgresLabMember.PORT + " user=postgres application_name="
                    + target.name() + " connect_timeout=2'\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            Files.setPosixFilePermissions(target.data(), PosixFilePermissions.fromString("rwx------"));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot take a base backup of " + source.describe() + " for "
                    + target.name() + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + source.describe() + " to " + target.name(), e);
        }
    }

    /**
     * Copies a running server's data directory: files that vanish meanwhile are skipped (the backup
     * label's WAL replay repairs what changed), the WAL is left out (streamed instead), and so are
     * the files that say which server ran on it.
     */
    private static void copyLive(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                String relative = from.relativize(dir).toString();
                // the WAL comes by streaming; its folders must exist
                return relative.equals("pg_wal") ? copyWalFolders(dir) : FileVisitResult.CONTINUE;
            }

            private FileVisitResult copyWalFolders(Path wal) throws IOException {
                Files.createDirectories(to.resolve("pg_wal").resolve("archive_status"));
                return FileVisitResult.SKIP_SUBTREE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                String relative = from.relativize(file).toString();
                if (NOT_COPIED.contains(relative)) {
                    return FileVisitResult.CONTINUE;
                }
                try {
                    Files.copy(file, to.resolve(relative), StandardCopyOption.COPY_ATTRIBUTES,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (NoSuchFileException e) {
                    // removed while copying: the WAL replay from the backup's start recreates what matters
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
    }

    /**
     * A JDBC URL over both members that connects to whichever is the primary now
     * ({@code targetServerType=primary}, rechecked every second), for the clients.
     */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + members.stream().map(m -> m.address() + ":" + PostgresLabMember.PORT)
                .collect(Collectors.joining(",")) + "/postgres?user=postgres&targetServerType=primary"
                + "&hostRecheckSeconds=1&connectTimeout=2&loginTimeout=5";
    }

    @Override
    public String describe() {
        return members.stream().map(PostgresLabMember::describe).collect(Collectors.joining("; "));
    }

    /** Kills every member; their directories go when the JVM exits. */
    @Override
    public void close() {
        for (PostgresLabMember member : members) {
            try {
                member.kill();
            } catch (RuntimeException e) {
                // already gone
            }
        }
    }
}
