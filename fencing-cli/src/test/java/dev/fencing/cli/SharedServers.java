package dev.fencing.cli;

import dev.fencing.cli.backends.LockKind;
import dev.fencing.cli.backends.StoreKind;
import dev.fencing.testkit.Skip;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Connection options that point the CLI at the testkit's shared servers, started once per test
 * JVM, instead of the embedded servers each CLI run would start for itself.
 */
final class SharedServers {

    private SharedServers() {}

    /** Every lock × store pair. */
    static Stream<Arguments> pairs() {
        return Arrays.stream(LockKind.values()).flatMap(lock -> Arrays.stream(StoreKind.values())
                .map(store -> Arguments.of(lock.cliName(), store.cliName())));
    }

    /**
     * Options for both sides of {@code lock} × {@code store} on shared servers, with a generous
     * {@code --timeout}: not a test of the bound — under load the first call of a client in this JVM
     * loads its classes, and the default 5 s ran out on S3 beside {@code stress-ng} (gate run 37).
     */
    static List<String> both(String lock, String store) {
        Set<List<String>> options = new LinkedHashSet<>(); // the jdbc store and the postgres lock share --pg-url
        options.addAll(lock(lock));
        options.add(store(store));
        List<String> flat = new ArrayList<>(List.of("--timeout", "30s"));
        options.forEach(flat::addAll);
        return flat;
    }

    /** Options for the lock alone, each option with its value. */
    static List<List<String>> lock(String lock) {
        return switch (lock) {
            case "redis" -> List.of(List.of("--redis-uri", TestServers.redis().uri()));
            case "postgres" -> List.of(List.of("--pg-url", TestServers.postgres().jdbcUrl()));
            case "redlock" -> TestServers.redisNodes(5).stream().map(RedisTestServer::uri)
                    .map(uri -> List.of("--redis-uri", uri)).toList();
            case "etcd" -> List.of(List.of("--etcd-endpoints", TestServers.etcd().endpoint()));
            case "zookeeper" -> List.of(List.of("--zookeeper-connect", TestServers.zooKeeper().connectString()));
            case "dynamodb" -> List.of(List.of("--dynamodb-endpoint", TestServers.dynamoDb().endpoint()));
            default -> throw new IllegalArgumentException(lock);
        };
    }

    /** Options for the store alone. */
    static List<String> store(String store) {
        return switch (store) {
            case "redis" -> List.of("--redis-store-uri", TestServers.redis().uri());
            case "jdbc" -> List.of("--pg-url", TestServers.postgres().jdbcUrl());
            case "dynamodb" -> List.of("--dynamodb-endpoint", TestServers.dynamoDb().endpoint());
            case "s3" -> List.of("--s3-endpoint", TestServers.s3().atomicEndpoint());
            case "azure-blob" -> List.of("--azure-blob-endpoint", TestServers.azureBlob().endpoint());
            case "gcs" -> List.of("--gcs-endpoint", gcsEndpoint());
            default -> throw new IllegalArgumentException(store);
        };
    }

    /**
     * The shared GCS server's endpoint (the storage-testbench beside the repository, or
     * {@code FENCING_GCS_ENDPOINT}); without one the calling test is skipped with the reason printed,
     * and fails under {@code CI=true}, where a skipped GCS test would hide that none ran.
     */
    static String gcsEndpoint() {
        Optional<String> why = TestServers.gcsUnavailable();
        if (why.isPresent()) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new IllegalStateException("CI=true, and the GCS tests would be skipped: " + why.get());
            }
            Skip.because(why.get());
        }
        return TestServers.gcs().endpoint();
    }

    static String[] args(List<String> first, List<String> more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(more);
        return all.toArray(String[]::new);
    }

    static String resource() {
        return "cli-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
