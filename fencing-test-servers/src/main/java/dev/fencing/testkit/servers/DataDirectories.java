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
