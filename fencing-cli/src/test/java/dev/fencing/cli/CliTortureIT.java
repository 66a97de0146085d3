package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencing.testkit.servers.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code torture}: one run per fault the CLI can inject, the runs together covering every
 * lock and every store (the other pairs' wiring is {@link CliIT}'s matrix), on servers the CLI
 * starts itself as a user's first {@code ./fencing torture} does — faults go only into those.
 * Only the s3 store runs on the testkit's shared S3Mock (behind the same serializing proxy the
 * CLI puts in front of its own): each S3Mock is a Spring Boot JVM, the costliest server to start.
 * Then the history file that {@code check-history} checks.
 */
class CliTortureIT {

    static Stream<Arguments> faults() {
        return Stream.of(
                // the lock's redis-server comes back from older snapshots again and again: at least two
                // restores, since the first has no older snapshot and starts empty
                Arguments.of("redis", "redis", "restore-lock-snapshot", "400ms", 2),
                Arguments.of("redis", "s3", "restart-lock-server", "500ms", 1),
                Arguments.of("postgres", "jdbc", "terminate-lock-backends", "500ms", 1),
                Arguments.of("redlock", "dynamodb", "restart-redlock-node", "500ms", 1),
                // a 3-member etcd cluster: its leader killed, a new one elected, the old one restarted
                Arguments.of("etcd", "redis", "restart-etcd-leader", "500ms", 1),
                // the server ends the lock client's session: holders and waiters lose their znodes
                Arguments.of("zookeeper", "redis", "expire-zookeeper-session", "400ms", 2));
    }

    @ParameterizedTest(name = "{0} lock, {1} store, {2}")
    @MethodSource("faults")
    void tortureWithPausesAndAFaultKeepsEveryInvariant(String lock, String store, String fault, String interval,
            int minimumFaults) {
        List<String> args = new ArrayList<>(List.of("torture", "--lock", lock, "--store", store, "--workers", "4",
                "--resources", "2", "--duration", "2s", "--ttl", "150ms", "--pause-probability", "0.3", "--faults", fault,
                "--fault-interval", interval, "--json",
                // not a test of the bound: the first call of a store's client in this JVM loads its classes, which
                // took more than the default 5 s on a busy machine (CI run 16, createBucket on S3)
                "--timeout", "20s"));
        if (store.equals("s3")) {
            args.addAll(SharedServers.store(store));
        }
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("faults").toString()).isEqualTo("[\"" + fault + "\"]");
        assertThat(report.get("faultsInjected").asLong()).as("faults injected").isGreaterThanOrEqualTo(minimumFaults);
        assertThat(report.get("accepted").asLong()).isPositive();
        assertThat(report.get("pauses").asLong()).as("pauses past the TTL").isPositive();
        assertThat(report.get("operations").asLong()).isEqualTo(report.get("accepted").asLong()
                + report.get("rejectedStale").asLong() + report.get("failed").asLong());
        assertThat(report.get("historyOperations").asLong()).as("store calls the history checker saw")
                .isGreaterThanOrEqualTo(report.get("accepted").asLong() + report.get("rejectedStale").asLong());
        assertThat(report.get("historyViolations").asLong()).isZero();
    }

    /**
     * The locks and stores without a fault of their own to inject (the DynamoDB lock and the Azure
     * Blob store, both on emulators the CLI starts): pauses past the TTL alone, every invariant kept.
     */
    @Test
    void tortureWithPausesOnTheDynamoDbLockAndTheAzureBlobStore() {
        CliRun run = CliRun.of("torture", "--lock", "dynamodb", "--store", "azure-blob", "--workers", "4", "--resources",
                "2", "--duration", "2s", "--ttl", "150ms", "--pause-probability", "0.3", "--faults", "none", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("accepted").asLong()).isPositive();
        assertThat(report.get("pauses").asLong()).as("pauses past the TTL").isPositive();
        assertThat(report.get("historyViolations").asLong()).isZero();
    }

    /**
     * The torture run's history file is checked by {@code check-history}, the same checker: it
     * passes as written, fails once a stale write accepted after a newer one is added to it, and a
     * file that is not a history is bad usage.
     */
    @Test
    void tortureWritesAHistoryThatCheckHistoryChecksAndAForgedStaleWriteFails(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("torture.history");
        CliRun run = CliRun.of("torture", "--redis-uri", TestServers.redis().uri(), "--workers", "3", "--duration",
                "1s", "--ttl", "100ms", "--pause-probability", "0.3", "--history", file.toString(), "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.json().get("historyFile").asText()).isEqualTo(file.toString());

        CliRun checked = CliRun.of("check-history", file.toString());
        assertThat(checked.exitCode()).as(checked.toString()).isZero();
        assertThat(checked.out()).contains("no violation");

        String key = "forged-key";
        Files.writeString(file, String.join("\n",
                "0\t0\t\"" + key + "\tWRITE\t7\t\"new\tOK\t~\t0\t10\t20\t~",
                "0\t1\t\"" + key + "\tWRITE\t6\t\"zombie\tOK\t~\t0\t30\t40\t~") + "\n",
                StandardOpenOption.APPEND);
        CliRun forged = CliRun.of("check-history", file.toString(), "--json");
        assertThat(forged.exitCode()).as(forged.toString()).isEqualTo(ExitCode.INVARIANT_VIOLATED);
        assertThat(forged.json().get("violations").toString()).contains("STALE_WRITE_ACCEPTED", key);

        Files.writeString(file, "not a history\n");
        CliRun bad = CliRun.of("check-history", file.toString());
        assertThat(bad.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(bad.err()).contains("not a fencing history");
    }

    /**
     * Only etcd, ZooKeeper, Redlock, Sentinel and PostgreSQL clusters are built so far: another kind, a size the kind
     * does not take, or a lock that does not match, is bad usage at once.
     */
    @Test
    void aClusterOfAnotherKindIsBadUsage() {
        CliRun other = CliRun.of("torture", "--cluster", "dynamodb:3");
        assertThat(other.exitCode()).as(other.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(other.err()).contains("'dynamodb' clusters in network namespaces are not built yet");
        CliRun postgres = CliRun.of("torture", "--cluster", "postgres:3");
        assertThat(postgres.exitCode()).as(postgres.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(postgres.err()).contains("postgres:N takes 2 (a primary and its streaming replica); got 3");
        CliRun mismatch = CliRun.of("torture", "--cluster", "etcd:3", "--lock", "zookeeper");
        assertThat(mismatch.exitCode()).as(mismatch.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(mismatch.err()).contains("cannot go with --lock zookeeper");
        CliRun even = CliRun.of("torture", "--cluster", "etcd:4");
        assertThat(even.exitCode()).as(even.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(even.err()).contains("3, 5 or 7 members");
    }
}
