package dev.fencing.testkit.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/** Environment overrides and the versions the build pinned. */
public final class Settings {

    private static final Properties VERSIONS = load();

    private Settings() {}

    /**
     * The value of environment variable {@code name}, or of the system property of the same
     * name, if set and not blank.
     */
    public static Optional<String> env(String name) {
        String value = System.getProperty(name, System.getenv(name));
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    /** A version pinned by the build, e.g. {@code s3mock.version}. */
    public static String version(String key) {
        String value = VERSIONS.getProperty(key);
        if (value == null || value.startsWith("${")) {
            throw new IllegalStateException("testkit build did not record " + key);
        }
        return value;
    }

    /** Where the testkit caches what it downloads (dynalite): {@code FENCING_TESTKIT_CACHE} or ~/.cache/fencing-testkit. */
    public static Path cacheDirectory() {
        return env("FENCING_TESTKIT_CACHE").map(Path::of)
                .orElse(Path.of(System.getProperty("user.home"), ".cache", "fencing-testkit"));
    }

    private static Properties load() {
        Properties properties = new Properties();
        try (InputStream in = Settings.class.getResourceAsStream("/dev/fencing/testkit/versions.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }
}
