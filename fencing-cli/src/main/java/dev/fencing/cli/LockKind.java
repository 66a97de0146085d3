package dev.fencing.cli;

/** The lock providers the CLI can run; {@link #available()} says which are built into this version. */
enum LockKind {
    REDIS(true), POSTGRES(true), REDLOCK(true);

    private final boolean available;

    LockKind(boolean available) {
        this.available = available;
    }

    boolean available() {
        return available;
    }

    /** The names of the kinds built into this version, comma-separated. */
    static String availableNames() {
        return java.util.Arrays.stream(values()).filter(LockKind::available).map(LockKind::cliName)
                .collect(java.util.stream.Collectors.joining(", "));
    }

    String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
