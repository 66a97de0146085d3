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
 * through {@code --dynamodb-endpoint} and {@code --s3-endpoint}, rather than starting its own.
 */
class CliBenchIT {

    /** Every comparison reports rows, baselines are 1.0, round trips are counted, no key is left behind. */
    @Test
    void benchQuickReportsEveryComparison() {
        String dynamo = TestServers.dynamoDb().endpoint();
        String s3 = TestServers.s3().endpoint();
        CliRun run = CliRun.of("bench", "--quick", "--json", "--dynamodb-endpoint", dynamo, "--s3-endpoint", s3);
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
        assertThat(comparisons).contains(1, 2, 3, 4, 5, 6, 7, 8);
        List<String> awsServers = new ArrayList<>();
        report.get("results").forEach(result -> {
            if (result.get("comparison").asInt() == 6) {
                awsServers.add(result.get("server").asText());
            }
        });
        assertThat(awsServers).containsExactly("the DynamoDB endpoint " + dynamo, "the S3 endpoint " + s3);
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
        JsonNode leftovers = report.get("results").get(report.get("results").size() - 1).get("rows").get(0);
        assertThat(leftovers.get("keysLeft").asLong()).as("token counters only").isEqualTo(10);
        assertThat(report.get("machine").get("cores").asInt()).isPositive();
    }
}
