package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** Copies and deletes a server's data directory, for the backups and restores of the fault tests. */
final class DataDirectories {

    private DataDirectories() {}

    /** Copies the tree under {@code from} into {@code to} (created if missing). */
    static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** Deletes {@code root} and everything under it; nothing if it does not exist. */
    static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }

    /**
     * A file-level backup of a stopped server's {@code data} directory, in a new folder beside it,
     * for {@link #restore}.
     */
    static Path backUp(Path data) {
        try {
            Path backup = Files.createTempDirectory(data.getParent(), "backup-");
            copy(data, backup.resolve("data"));
            return backup;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot back up " + data, e);
        }
    }

    /** Replaces a stopped server's {@code data} directory with a {@link #backUp} of it. */
    static void restore(Path backup, Path data) {
        try {
            delete(data);
            copy(backup.resolve("data"), data);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restore " + data + " from " + backup, e);
        }
    }

    /** Deletes {@code root} when the JVM exits. */
    static void deleteOnExit(Path root) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                delete(root);
            } catch (IOException | UncheckedIOException e) {
                // a temporary directory: the OS cleans it up eventually
            }
        }, "fencing-delete-" + root.getFileName()));
    }
}
