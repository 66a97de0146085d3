package dev.fencing.cli;

/** The fenced stores the CLI can run; {@link #available()} says which are built into this version. */
enum StoreKind {
    REDIS(true), JDBC(true), DYNAMODB(true), S3(true);

    private final boolean available;

    StoreKind(boolean available) {
        this.available = available;
    }

    boolean available() {
        return available;
    }

    /** The names of the kinds built into this version, comma-separated. */
    static String availableNames() {
        return java.util.Arrays.stream(values()).filter(StoreKind::available).map(StoreKind::cliName)
                .collect(java.util.stream.Collectors.joining(", "));
    }

    String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
