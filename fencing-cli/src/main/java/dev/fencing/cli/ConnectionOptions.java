package dev.fencing.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where the servers are. Every option falls back to the {@code FENCING_*} environment variable the
 * testkit reads; without either, the CLI starts an embedded server itself.
 */
final class ConnectionOptions {

    @Option(names = "--redis-uri", paramLabel = "URI",
            description = "Redis to use (redis://host:port); repeat for Redlock. Env: FENCING_REDIS_URI (comma-separated).")
    List<String> redisUris = new ArrayList<>();

    @Option(names = "--redis-store-uri", paramLabel = "URI",
            description = "Redis for the redis store, if not the lock's (redis://host:port). Env: FENCING_REDIS_STORE_URI.")
    String redisStoreUri;

    @Option(names = "--pg-url", paramLabel = "JDBC_URL",
            description = "JDBC URL (with credentials) of the database for the jdbc store: PostgreSQL, or MariaDB/MySQL."
                    + " Env: FENCING_PG_URL.")
    String pgUrl;

    /** The database for the jdbc store, from the option or the environment; empty means start one. */
    Optional<String> jdbcUrl() {
        return Optional.ofNullable(pgUrl).or(() -> env("FENCING_PG_URL"));
    }

    @Option(names = "--dynamodb-endpoint", paramLabel = "URL",
            description = "DynamoDB endpoint for the dynamodb store (credentials from the AWS default chain, else dummy keys"
                    + " for emulators)."
                    + " Env: FENCING_DYNAMODB_ENDPOINT.")
    String dynamoDbEndpoint;

    /** The DynamoDB endpoint, from the option or the environment; empty means start dynalite. */
    Optional<String> dynamoDbEndpoint() {
        return Optional.ofNullable(dynamoDbEndpoint).or(() -> env("FENCING_DYNAMODB_ENDPOINT"));
    }

    @Option(names = "--s3-endpoint", paramLabel = "URL",
            description = "S3 endpoint for the s3 store, which must arbitrate conditional puts atomically (credentials from"
                    + " the AWS default chain, else dummy keys for emulators). Env: FENCING_S3_ENDPOINT.")
    String s3Endpoint;

    /** The S3 endpoint, from the option or the environment; empty means start S3Mock. */
    Optional<String> s3Endpoint() {
        return Optional.ofNullable(s3Endpoint).or(() -> env("FENCING_S3_ENDPOINT"));
    }

    /** The lock's Redis servers, from the option or the environment; empty means start one. */
    List<String> redisLockUris() {
        if (!redisUris.isEmpty()) {
            return redisUris;
        }
        return env("FENCING_REDIS_URI").map(v -> Arrays.stream(v.split(",")).map(String::trim).toList())
                .orElse(List.of());
    }

    /** The store's Redis server, from the option or the environment; empty means the lock's, or start one. */
    Optional<String> redisStoreUri() {
        return Optional.ofNullable(redisStoreUri).or(() -> env("FENCING_REDIS_STORE_URI"));
    }

    private static Optional<String> env(String name) {
        return Optional.ofNullable(System.getenv(name)).filter(v -> !v.isBlank());
    }
}
