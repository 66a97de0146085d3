package dev.fencing.cli.backends;

import dev.fencing.testkit.servers.RedisTestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The {@code restore-lock-snapshot} fault: the lock's redis-server comes back from a snapshot
 * older than its last grants, as after a restore from backup or a crash with RDB persistence.
 * Each injection saves the data as it is now, SIGKILLs the server, puts back the snapshot saved
 * by the previous injection (none the first time: the server starts empty) and starts it, so the
 * token counters go back by one fault interval.
 */
final class SnapshotRestore implements AutoCloseable {

    private static final String DUMP = "dump.rdb";

    private final Path dir;
    private final RedisTestServer server;

    private SnapshotRestore(Path dir, RedisTestServer server) {
        this.dir = dir;
        this.server = server;
    }

    /** Starts a redis-server that persists to a directory of its own only when told to ({@code SAVE}). */
    static SnapshotRestore launch() {
        try {
            Path dir = Files.createTempDirectory("fencing-cli-redis-");
            return new SnapshotRestore(dir, RedisTestServer.launch("--dir", dir.toString(), "--dbfilename", DUMP));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for the lock's redis-server", e);
        }
    }

    RedisTestServer server() {
        return server;
    }

    /** One injection of the fault. */
    void restoreOlderSnapshot() {
        try {
            Path older = dir.resolve("older.rdb");
            Path now = dir.resolve("now.rdb");
            server.command("SAVE");
            Files.copy(dir.resolve(DUMP), now, StandardCopyOption.REPLACE_EXISTING);
            server.kill();
            if (Files.exists(older)) {
                Files.copy(older, dir.resolve(DUMP), StandardCopyOption.REPLACE_EXISTING);
            } else {
                Files.delete(dir.resolve(DUMP));
            }
            server.start();
            Files.move(now, older, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot swap the snapshot of the lock's redis-server in " + dir, e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            server.stop();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
