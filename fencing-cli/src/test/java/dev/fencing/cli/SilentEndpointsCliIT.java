package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.cli.backends.Backends;
import dev.fencing.testkit.servers.SilentServer;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code inspect} against a server that accepts TCP and never answers, for each store and lock:
 * exit 3 within the CLI's connect bound ({@link Backends#CONNECT_TIMEOUT}, 5 s) plus a slack of
 * 5 s for the CLI's own JVM start (7.3 s in all was seen beside three other builds on 2 cores),
 * with one line naming what did not answer — no stack trace. Measured before the bound: Redis
 * 62 s, S3 123 s, DynamoDB 285 s, ZooKeeper 11 s with two Curator ERROR traces.
 */
class SilentEndpointsCliIT {

    private static final SilentServer SILENT = SilentServer.start();
    private static final Duration BOUND = Backends.CONNECT_TIMEOUT.plusSeconds(5);

    @AfterAll
    static void close() {
        SILENT.close();
    }

    static Stream<Arguments> silentEndpoints() {
        String at = SILENT.hostPort();
        return Stream.of(
                Arguments.of(List.of("--store", "redis", "--redis-uri", "redis://" + at), "Redis for the store at redis://" + at),
                Arguments.of(List.of("--store", "s3", "--s3-endpoint", "http://" + at), "S3 at http://" + at),
                Arguments.of(List.of("--store", "dynamodb", "--dynamodb-endpoint", "http://" + at),
                        "DynamoDB at http://" + at),
                Arguments.of(List.of("--store", "azure-blob", "--azure-blob-endpoint", "http://" + at + "/devstoreaccount1"),
                        "Azure Blob Storage at http://" + at),
                Arguments.of(List.of("--store", "jdbc", "--pg-url", "jdbc:postgresql://" + at + "/db?user=u"),
                        "the database at"),
                Arguments.of(List.of("--lock", "zookeeper", "--zookeeper-connect", at), "ZooKeeper for the lock at " + at),
                Arguments.of(List.of("--lock", "etcd", "--etcd-endpoints", "http://" + at), "etcd for the lock at http://" + at));
    }

    @ParameterizedTest
    @MethodSource("silentEndpoints")
    @Timeout(60)
    void inspectGivesUpWithinTheBoundWithOneLine(List<String> options, String what) {
        List<String> args = new java.util.ArrayList<>(List.of("inspect", "--resource", "silent"));
        args.addAll(options);
        long start = System.nanoTime();
        CliRun run = CliRun.of(args.toArray(String[]::new));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(run.err()).as(run.toString()).contains(what).contains("could not be reached")
                .doesNotContain("\tat ");
        assertThat(run.err().strip().lines().count()).as(run.toString()).isOne();
        assertThat(took).as("gave up after %s: %s", took, run).isLessThan(BOUND);
    }

    /** {@code --timeout} sets the bound both ways: a silent S3 is waited for that long, and no longer. */
    @Test
    @Timeout(60)
    void theTimeoutOptionSetsTheBound() {
        for (Duration timeout : List.of(Duration.ofSeconds(1), Duration.ofSeconds(7))) {
            long start = System.nanoTime();
            CliRun run = CliRun.of("inspect", "--resource", "silent", "--store", "s3", "--s3-endpoint",
                    "http://" + SILENT.hostPort(), "--timeout", timeout.toSeconds() + "s");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
            assertThat(took).as("gave up after %s with --timeout %s: %s", took, timeout, run)
                    .isBetween(timeout.minusMillis(100), timeout.plusSeconds(5));
        }
    }

    @Test
    void aTimeoutOutOfRangeIsBadUsageBeforeAnyConnection() {
        CliRun run = CliRun.of("inspect", "--resource", "silent", "--store", "s3", "--s3-endpoint",
                "http://" + SILENT.hostPort(), "--timeout", "50ms");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--timeout must be between 100ms and 10m, got 50ms");
    }
}
