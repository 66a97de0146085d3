package dev.fencing.testkit.containers;

import dev.fencing.testkit.internal.Settings;
import java.time.Duration;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Containers for the servers the toolkit's stores and providers need, each image overridable by
 * an environment variable. The caller starts and stops them (try-with-resources works).
 *
 * <p>LocalStack's community image has required an auth token since March 2026, so the default is
 * an older tag; {@code FENCING_LOCALSTACK_IMAGE} accepts another, or a token-free drop-in such as
 * {@code floci/floci} that answers on the same port.
 */
public final class Containers {

    /** The default LocalStack image: the last tags before the auth token requirement. */
    public static final String DEFAULT_LOCALSTACK_IMAGE = "localstack/localstack:3.8.1";

    private Containers() {}

    /** PostgreSQL ({@code FENCING_POSTGRES_IMAGE}, default {@code postgres:17-alpine}), user and password {@code fencing}. */
    public static GenericContainer<?> postgres() {
        return new GenericContainer<>(image("FENCING_POSTGRES_IMAGE", "postgres:17-alpine"))
                .withEnv("POSTGRES_USER", "fencing")
                .withEnv("POSTGRES_PASSWORD", "fencing")
                .withEnv("POSTGRES_DB", "fencing")
                .withExposedPorts(5432)
                .waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*", 2)
                        .withStartupTimeout(Duration.ofMinutes(2)));
    }

    /** The JDBC URL of a started {@link #postgres()} container. */
    public static String jdbcUrl(GenericContainer<?> postgres) {
        return "jdbc:postgresql://" + postgres.getHost() + ":" + postgres.getMappedPort(5432)
                + "/fencing?user=fencing&password=fencing";
    }

    /** Redis ({@code FENCING_REDIS_IMAGE}, default {@code redis:7.2-alpine}). */
    public static GenericContainer<?> redis() {
        return new GenericContainer<>(image("FENCING_REDIS_IMAGE", "redis:7.2-alpine"))
                .withExposedPorts(6379)
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*", 1));
    }

    /** The {@code redis://} URI of a started {@link #redis()} container. */
    public static String redisUri(GenericContainer<?> redis) {
        return "redis://" + redis.getHost() + ":" + redis.getMappedPort(6379);
    }

    /** LocalStack with S3 and DynamoDB ({@code FENCING_LOCALSTACK_IMAGE}). */
    public static GenericContainer<?> localstack() {
        return new GenericContainer<>(image("FENCING_LOCALSTACK_IMAGE", DEFAULT_LOCALSTACK_IMAGE))
                .withEnv("SERVICES", "s3,dynamodb")
                .withExposedPorts(4566)
                .waitingFor(Wait.forHttp("/_localstack/health").forPort(4566).withStartupTimeout(Duration.ofMinutes(3)));
    }

    /** The endpoint of a started {@link #localstack()} container, for S3 and DynamoDB clients alike. */
    public static String localstackEndpoint(GenericContainer<?> localstack) {
        return "http://" + localstack.getHost() + ":" + localstack.getMappedPort(4566);
    }

    private static DockerImageName image(String variable, String fallback) {
        return DockerImageName.parse(Settings.env(variable).orElse(fallback));
    }
}
