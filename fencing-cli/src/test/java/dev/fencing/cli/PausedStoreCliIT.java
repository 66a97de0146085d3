package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A worker whose store stops answering for longer than {@code --timeout} in the middle of its run
 * (as when the worker is paused, or the network is cut, inside a read or a write): it counts each
 * failed increment under its exception type, goes on once the store answers again, and ends with
 * its JSON summary — never with a stack trace. The counter holds every accepted increment, and at
 * most the increments whose outcome was unknown besides.
 */
class PausedStoreCliIT {

    /**
     * The worker's {@code --timeout}: it bounds every store call, the first one too, which on a
     * loaded machine (CI's) took more than 2 s for S3 (the SDK's first request) and ended the run
     * at start-up.
     */
    private static final String TIMEOUT = "4s";

    /** How long the store stays silent: more than twice the worker's timeout. */
    private static final long SILENCE_MILLIS = 9_000;

    @ParameterizedTest
    @ValueSource(strings = {"redis", "jdbc", "dynamodb", "s3", "azure-blob", "gcs"})
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aWorkerCountsTheSilenceAndEndsWithItsSummary(String store) throws Exception {
        List<String> direct = SharedServers.store(store);
        URI server = serverOf(direct.get(1));
        String resource = SharedServers.resource();
        try (PartitionProxy link = PartitionProxy.start(server.getHost(), server.getPort())) {
            List<String> args = new ArrayList<>(List.of("worker", "--json", "--resource", resource, "--increments", "60",
                    "--hold", "100ms", "--ttl", "10s", "--timeout", TIMEOUT, "--lock", "redis", "--redis-uri",
                    TestServers.redis().uri(), "--store", store, direct.get(0),
                    direct.get(1).replace(server.getHost() + ":" + server.getPort(), "127.0.0.1:" + link.port())));
            CompletableFuture<CliRun> worker = CompletableFuture.supplyAsync(() -> CliRun.of(args.toArray(String[]::new)));

            await().atMost(Duration.ofSeconds(90)).until(() -> counter(store, direct, resource) >= 2 || worker.isDone());
            assertThat(worker).as("the worker ended before the store went silent").isNotDone();
            link.cut();
            Thread.sleep(SILENCE_MILLIS); // the fault itself: the store silent for this long, not a wait for a result
            link.heal();

            CliRun run = worker.get(120, TimeUnit.SECONDS);
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.OK);
            JsonNode summary = run.json();
            assertThat(summary.get("fatal").isNull()).as(run.toString()).isTrue();
            JsonNode failures = summary.get("failures");
            long unavailable = failures.path("StoreUnavailableException").asLong();
            long unknown = failures.path("WriteOutcomeUnknownException").asLong();
            assertThat(unavailable + unknown).as("increments failed by the silence: %s", run).isPositive();
            assertThat(summary.get("failed").asLong()).as(run.toString()).isEqualTo(
                    unavailable + unknown + failures.path("LockUnavailableException").asLong()
                            + failures.path("LeaseLostException").asLong());
            long accepted = summary.get("accepted").asLong();
            assertThat(accepted).as("the worker went on after the silence: %s", run).isGreaterThan(3);
            long counter = summary.get("counter").asLong();
            assertThat(counter).as("every accepted increment, and at most the unknown ones besides: %s", run)
                    .isBetween(accepted, accepted + unknown);
            assertThat(run.err()).as(run.toString()).doesNotContain("\tat ");
        }
    }

    /** The server behind a store option's value: a URL, a JDBC URL or a Redis URI. */
    private static URI serverOf(String option) {
        return URI.create(option.startsWith("jdbc:") ? option.substring("jdbc:".length()) : option);
    }

    private static long counter(String store, List<String> direct, String resource) {
        CliRun run = CliRun.of("inspect", "--json", "--resource", resource, "--store", store, direct.get(0),
                direct.get(1), "--timeout", "30s");
        JsonNode value = run.json().get("value");
        return value == null || value.isNull() ? 0 : Long.parseLong(value.asText());
    }
}
