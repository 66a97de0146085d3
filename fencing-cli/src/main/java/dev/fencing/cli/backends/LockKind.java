package dev.fencing.cli.backends;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The lock providers the CLI can run; {@link #available()} says which are built into this version. */
public enum LockKind {
    REDIS(true), POSTGRES(true), REDLOCK(true), ETCD(true), ZOOKEEPER(true), DYNAMODB(true);

    private final boolean available;

    LockKind(boolean available) {
        this.available = available;
    }

    public boolean available() {
        return available;
    }

    /** The names of the kinds built into this version, comma-separated. */
    static String availableNames() {
        return Arrays.stream(values()).filter(LockKind::available).map(LockKind::cliName)
                .collect(Collectors.joining(", "));
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
