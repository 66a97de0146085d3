package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencing.testkit.servers.TestServers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code bench --quick}: the harness, not the speed. A class of its own so that it runs beside
 * {@link CliIT} and {@link CliTortureIT} (classes run concurrently in this module; nothing here
 * is timed against anything). Comparison 6 runs on the testkit's shared dynalite and S3Mock,
 * through {@code --dynamodb-endpoint} and {@code --s3-endpoint}, comparisons 9 and 10 on its shared
 * etcd and ZooKeeper, through {@code --etcd-endpoints} and {@code --zookeeper-connect}, rather
 * than starting their own.
 */
class CliBenchIT {

    /** Every comparison reports rows, baselines are 1.0, round trips are counted, no key is left behind. */
    @Test
    void benchQuickReportsEveryComparison() {
        String dynamo = TestServers.dynamoDb().endpoint();
        String s3 = TestServers.s3().endpoint();
        String etcd = TestServers.etcd().endpoint();
        String zooKeeper = TestServers.zooKeeper().connectString();
        CliRun run = CliRun.of("bench", "--quick", "--json", "--dynamodb-endpoint", dynamo, "--s3-endpoint", s3,
                "--etcd-endpoints", etcd, "--zookeeper-connect", zooKeeper);
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        List<Integer> comparisons = new ArrayList<>();
        report.get("results").forEach(result -> {
            comparisons.add(result.get("comparison").asInt());
            assertThat(result.get("rows")).as(result.get("title").asText()).isNotEmpty();
            JsonNode first = result.get("rows").get(0);
            if (first.has("ratioToBaseline")) {
                assertThat(first.get("ratioToBaseline").asDouble()).isEqualTo(1.0);
                result.get("rows").forEach(row -> assertThat(row.get("opsPerSecond").asLong()).isPositive());
            }
            result.get("rows").forEach(row -> {
                if (result.get("comparison").asInt() == 2) {
                    assertThat(row.has("p50Micros")).as("a throughput row times no single operation").isFalse();
                } else if (row.has("p50Micros")) {
                    assertThat(row.get("p50Micros").asDouble()).isPositive()
                            .isLessThanOrEqualTo(row.get("p99Micros").asDouble());
                }
            });
        });
        assertThat(comparisons).contains(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        assertThat(servers(report, 6)).containsExactly("the DynamoDB endpoint " + dynamo, "the S3 endpoint " + s3);
        assertThat(servers(report, 9)).containsExactly("the etcd endpoints " + etcd);
        assertThat(servers(report, 10)).containsExactly("the ZooKeeper at " + zooKeeper);
        assertThat(contenders(report, 9)).containsExactly(
                "jetcd Lock service lock + unlock, on one lease granted before the run",
                "fencing EtcdLockProvider tryAcquire + release",
                "jetcd Lock service with a lease per grant: grant + lock + unlock + revoke");
        assertThat(contenders(report, 10)).containsExactly(
                "bare Curator create EPHEMERAL_SEQUENTIAL + delete (floor, no lock)",
                "fencing ZooKeeperLockProvider tryAcquire + release",
                "Curator InterProcessMutex acquire + release");
        report.get("results").forEach(result -> {
            if (result.get("comparison").asInt() == 5) { // counted, not timed: the fence row costs one round trip
                Map<String, Double> roundTrips = new HashMap<>();
                result.get("rows").forEach(row -> roundTrips.put(row.get("contender").asText(),
                        row.get("roundTripsPerOp").asDouble()));
                // within 0.05: the pool's occasional liveness check of a borrowed connection is counted too
                assertThat(roundTrips.get("plain transaction: BEGIN, UPDATE, COMMIT")).isCloseTo(2.0, within(0.05));
                assertThat(roundTrips.get("JdbcFence transaction: fence row, UPDATE, COMMIT")).isCloseTo(3.0, within(0.05));
                // the row guard raises the lock's fence row, then guards the row, in one transaction
                assertThat(roundTrips.get("FencedTable.update (autocommit)")).isCloseTo(3.0, within(0.05));
            }
        });
        JsonNode leftovers = results(report, 8).get(0).get("rows").get(0);
        assertThat(leftovers.get("keysLeft").asLong()).as("token counters only").isEqualTo(10);
        assertThat(report.get("machine").get("cores").asInt()).isPositive();
    }

    /** {@code --only} takes the comparisons' numbers, 1 to 10: another is bad usage, before any server starts. */
    @Test
    void onlyRefusesAComparisonThatDoesNotExist() {
        CliRun run = CliRun.of("bench", "--only", "9,11");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--only: there is no comparison 11; they are numbered 1 to 10");
    }

    private static List<JsonNode> results(JsonNode report, int comparison) {
        List<JsonNode> found = new ArrayList<>();
        report.get("results").forEach(result -> {
            if (result.get("comparison").asInt() == comparison) {
                found.add(result);
            }
        });
        return found;
    }

    private static List<String> servers(JsonNode report, int comparison) {
        return results(report, comparison).stream().map(result -> result.get("server").asText()).toList();
    }

    private static List<String> contenders(JsonNode report, int comparison) {
        List<String> names = new ArrayList<>();
        results(report, comparison).forEach(result -> result.get("rows")
                .forEach(row -> names.add(row.get("contender").asText())));
        return names;
    }
}
