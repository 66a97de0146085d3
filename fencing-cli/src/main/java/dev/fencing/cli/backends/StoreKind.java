package dev.fencing.cli.backends;

import java.util.Locale;

/** The fenced stores the CLI can run. */
public enum StoreKind {
    REDIS, JDBC, DYNAMODB, S3, AZURE_BLOB, GCS;

    /** The name on the command line: {@code azure-blob} for {@link #AZURE_BLOB}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
