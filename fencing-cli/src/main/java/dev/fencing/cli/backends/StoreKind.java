package dev.fencing.cli.backends;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The fenced stores the CLI can run; {@link #available()} says which are built into this version. */
public enum StoreKind {
    REDIS(true), JDBC(true), DYNAMODB(true), S3(true), AZURE_BLOB(true);

    private final boolean available;

    StoreKind(boolean available) {
        this.available = available;
    }

    public boolean available() {
        return available;
    }

    /** The names of the kinds built into this version, comma-separated. */
    static String availableNames() {
        return Arrays.stream(values()).filter(StoreKind::available).map(StoreKind::cliName)
                .collect(Collectors.joining(", "));
    }

    /** The name on the command line: {@code azure-blob} for {@link #AZURE_BLOB}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
