package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command, in process on small settings, for every lock × store pair built into this
 * version (embedded servers started by the CLI itself unless a test points it at the testkit's);
 * and two worker processes on one resource.
 */
class CliIT {

    static Stream<Arguments> pairs() {
        return Arrays.stream(LockKind.values()).filter(LockKind::available).flatMap(lock -> Arrays
                .stream(StoreKind.values()).filter(StoreKind::available)
                .map(store -> Arguments.of(lock.cliName(), store.cliName())));
    }

    /** Connection options pointing the store at the testkit's shared server (the lock stays embedded). */
    private static List<String> sharedStore(String store) {
        return switch (store) {
            case "redis" -> List.of("--redis-store-uri", TestServers.redis().uri());
            case "jdbc" -> List.of();
            case "dynamodb" -> List.of("--dynamodb-endpoint", TestServers.dynamoDb().endpoint());
            case "s3" -> List.of("--s3-endpoint", TestServers.s3().atomicEndpoint());
            default -> throw new IllegalArgumentException(store);
        };
    }

    private static String[] args(List<String> first, List<String> more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(more);
        return all.toArray(String[]::new);
    }

    private static String resource() {
        return "cli-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The README's first command, as it runs there: default lock and store, embedded servers, text. */
    @Test
    void theDemoShowsTheZombieRefusedWithFencingAndTheLostUpdateWithout() {
        CliRun run = CliRun.of("demo", "--ttl", "300ms");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out())
                .contains("1) With fencing")
                .contains("REFUSED: Stale fencing token")
                .contains("final: balance 150")
                .contains("client-2's deposit of 50 is lost");
    }

    @ParameterizedTest(name = "{0} lock, {1} store")
    @MethodSource("pairs")
    void theDemoReportsInJson(String lock, String store) {
        CliRun run = CliRun.of(args(List.of("demo", "--lock", lock, "--store", store, "--ttl", "200ms", "--json"),
                sharedStore(store)));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        JsonNode fenced = report.get("runs").get(0);
        JsonNode plain = report.get("runs").get(1);
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(fenced.get("zombieWriteRefused").asBoolean()).isTrue();
        assertThat(fenced.get("finalBalance").asLong()).isEqualTo(150);
        assertThat(fenced.get("lostUpdate").asBoolean()).isFalse();
        assertThat(plain.get("finalBalance").asLong()).isEqualTo(70);
        assertThat(plain.get("lostUpdate").asBoolean()).isTrue();
        List<Long> tokens = new ArrayList<>();
        fenced.get("events").forEach(e -> {
            if (e.get("actor").asText().equals("client-2") && e.has("token")) {
                tokens.add(e.get("token").asLong());
            }
        });
        long zombieToken = fenced.get("events").get(1).get("token").asLong();
        assertThat(tokens).isNotEmpty().allSatisfy(t -> assertThat(t).isGreaterThan(zombieToken));
    }

    @ParameterizedTest(name = "{0} lock, {1} store")
    @MethodSource("pairs")
    void aWorkerCountsItsAcceptedIncrementsIntoTheStore(String lock, String store) {
        String resource = resource();
        CliRun run = CliRun.of(args(List.of("worker", "--lock", lock, "--store", store, "--resource", resource,
                "--increments", "20", "--json"), sharedStore(store)));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("accepted").asLong()).isEqualTo(20);
        assertThat(report.get("counter").asText()).isEqualTo("20");
        assertThat(report.get("lastToken").asLong()).isGreaterThan(report.get("firstToken").asLong());
        assertThat(report.get("violations")).isEmpty();
    }

    @ParameterizedTest(name = "{0} lock, {1} store")
    @MethodSource("pairs")
    void tortureWithPausesAndFaultsKeepsEveryInvariant(String lock, String store) {
        CliRun run = CliRun.of("torture", "--lock", lock, "--store", store, "--workers", "4", "--resources", "2",
                "--duration", "2s", "--ttl", "150ms", "--pause-probability", "0.3", "--fault-interval", "500ms",
                "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("accepted").asLong()).isPositive();
        assertThat(report.get("pauses").asLong()).as("pauses past the TTL").isPositive();
        assertThat(report.get("faultsInjected").asLong()).as("faults injected").isPositive();
        assertThat(report.get("operations").asLong()).isEqualTo(report.get("accepted").asLong()
                + report.get("rejectedStale").asLong() + report.get("failed").asLong());
        assertThat(report.get("historyOperations").asLong()).as("store calls the history checker saw")
                .isGreaterThanOrEqualTo(report.get("accepted").asLong() + report.get("rejectedStale").asLong());
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

    /** The lock's redis-server comes back from older snapshots, again and again: the store still refuses every stale write. */
    @Test
    void tortureRestoringTheLockFromOlderSnapshotsKeepsEveryInvariant() {
        CliRun run = CliRun.of("torture", "--lock", "redis", "--store", "redis", "--workers", "4", "--resources", "2",
                "--duration", "2s", "--ttl", "150ms", "--faults", "restore-lock-snapshot", "--fault-interval", "400ms",
                "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("faultsInjected").asLong()).as("snapshot restores").isGreaterThanOrEqualTo(2);
        assertThat(report.get("accepted").asLong()).isPositive();
    }

    static Stream<Arguments> sharedServers() {
        RedisTestServer redis = TestServers.redis();
        return Stream.of(
                Arguments.of("redis", List.of("--redis-uri", redis.uri())),
                Arguments.of("jdbc", List.of("--redis-uri", redis.uri(), "--pg-url", TestServers.postgres().jdbcUrl())),
                Arguments.of("dynamodb", List.of("--redis-uri", redis.uri(), "--dynamodb-endpoint",
                        TestServers.dynamoDb().endpoint())),
                Arguments.of("s3", List.of("--redis-uri", redis.uri(), "--s3-endpoint", TestServers.s3().atomicEndpoint())));
    }

    @ParameterizedTest(name = "{0} store")
    @MethodSource("sharedServers")
    void twoWorkerProcessesOnOneResourceSumToTheStoredCounter(String store, List<String> servers) throws Exception {
        String resource = resource();
        List<String> args = new ArrayList<>(List.of("worker", "--store", store, "--resource", resource, "--increments",
                "25", "--hold", "5ms", "--json"));
        args.addAll(servers);
        Process first = CliRun.inNewJvm(args);
        Process second = CliRun.inNewJvm(args);
        JsonNode a = finish(first);
        JsonNode b = finish(second);
        long accepted = a.get("accepted").asLong() + b.get("accepted").asLong();
        assertThat(accepted).isPositive();

        List<String> inspectArgs = new ArrayList<>(List.of("inspect", "--store", store, "--resource", resource, "--lock",
                "redis", "--json"));
        inspectArgs.addAll(servers);
        CliRun inspect = CliRun.of(inspectArgs.toArray(String[]::new));
        assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
        JsonNode state = inspect.json();
        assertThat(state.get("value").asText()).isEqualTo(Long.toString(accepted));
        assertThat(state.get("state").asText()).isEqualTo("present");
        long lastToken = Math.max(a.get("lastToken").asLong(), b.get("lastToken").asLong());
        assertThat(state.get("highWaterMark").asLong()).isEqualTo(lastToken);
        assertThat(state.get("lastToken").asLong()).isEqualTo(lastToken);
        assertThat(state.get("holder").isNull()).isTrue();
    }

    private static JsonNode finish(Process process) throws Exception {
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("worker process finished").isTrue();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(out).isZero();
        return CliRun.parse(out);
    }

    @Test
    void inspectTellsAnAbsentResourceInText() {
        CliRun run = CliRun.of("inspect", "--redis-uri", TestServers.redis().uri(), "--resource", resource(), "--lock",
                "redis");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("absent: no value and no mark").contains("lock:  free; no token issued yet");
    }

    @Test
    void badUsageExitsWithTwoAndNamesTheBadValue() {
        assertThat(CliRun.of("demo", "--lock", "zookeeper")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("'zookeeper' is not a lock provider; choose one of redis, postgres, redlock");
        });
        assertThat(CliRun.of("demo", "--ttl", "soon")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("'soon' is not a duration");
        });
        assertThat(CliRun.of("worker", "--increments", "3")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--resource");
        });
        assertThat(CliRun.of("worker", "--resource", "r", "--increments", "0")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--increments must be between 1 and 1000000, got 0");
        });
        assertThat(CliRun.of("torture", "--pause-probability", "1.5")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--pause-probability must be between 0 and 1, got 1.5");
        });
        assertThat(CliRun.of("torture", "--redis-uri", TestServers.redis().uri(), "--faults", "restart-lock-server",
                "--duration", "1s")).satisfies(run -> {
                    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
                    assertThat(run.err()).contains("faults need servers the CLI started itself");
                });
        assertThat(CliRun.of()).satisfies(run -> assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE));
    }


    @Test
    void anUnreachableServerExitsWithThreeAndSaysHowToPointElsewhere() {
        CliRun run = CliRun.of("worker", "--redis-uri", "redis://127.0.0.1:1", "--resource", "r", "--increments", "1");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(run.err()).contains("127.0.0.1:1").contains("--redis-uri or FENCING_REDIS_URI");
    }

    /** The harness, not the speed: every comparison reports rows, baselines are 1.0, no key is left behind. */
    @Test
    void benchQuickReportsEveryComparison() {
        CliRun run = CliRun.of("bench", "--quick", "--json");
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

    @Test
    void helpListsEveryCommandAndOption() {
        CliRun top = CliRun.of("--help");
        assertThat(top.exitCode()).isZero();
        assertThat(top.out()).contains("demo", "worker", "torture", "inspect", "Exit codes");
        CliRun torture = CliRun.of("torture", "--help");
        assertThat(torture.out()).contains("--workers", "--duration", "--pause-probability", "--faults", "--json",
                "--redis-uri");
    }
}
