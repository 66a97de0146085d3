package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencing.testkit.servers.TestServers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code leader} (a candidate that prints its terms) and {@code torture --leadership}. */
class CliLeaderIT {

    private final String redis = TestServers.redis().uri();

    /**
     * A candidate in a JVM of its own leads; stopped as Ctrl-C stops it (SIGTERM runs the same
     * shutdown hook), it releases the lock and prints its revocation, and a second candidate is
     * elected long before the 30 s TTL would have let it.
     */
    @Test
    void aCandidateStoppedLikeCtrlCHandsOverToTheNextLongBeforeItsTtl() throws Exception {
        String name = SharedServers.resource();
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), FencingCli.class.getName(), "leader", "--redis-uri", redis,
                "--name", name, "--candidate", "first", "--ttl", "30s"));
        Process first = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = read(first, lines);
        try {
            await("the first candidate's election").atMost(Duration.ofSeconds(60))
                    .until(() -> lines.stream().anyMatch(line -> line.contains(" first elected, epoch ")));
            long firstEpoch = epochIn(lines.stream().filter(line -> line.contains(" first elected, epoch ")).findFirst()
                    .orElseThrow());
            CompletableFuture<CliRun> second = CompletableFuture.supplyAsync(() -> CliRun.of("leader", "--redis-uri",
                    redis, "--name", name, "--candidate", "second", "--ttl", "30s", "--for", "8s", "--json"));

            Instant stoppedAt = Instant.now();
            // SIGTERM runs the shutdown hook that stops the leadership, as Ctrl-C does; not Process.destroy(),
            // which also closes this side of the child's output, so that its last lines are lost
            Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(first.pid())).start();
            assertThat(kill.waitFor()).isZero();
            assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
            reader.join(5_000);
            assertThat(lines).anyMatch(line -> line.endsWith(" first revoked, epoch " + firstEpoch + ": STOPPED"));
            assertThat(lines).as("the summary, on SIGTERM too").contains("first stopped after 1 term(s)");

            CliRun run = second.get(60, TimeUnit.SECONDS);
            assertThat(run.exitCode()).as(run.toString()).isZero();
            JsonNode terms = run.json().get("terms");
            assertThat(terms).as(run.toString()).hasSize(1);
            assertThat(terms.get(0).get("epoch").asLong()).isGreaterThan(firstEpoch);
            assertThat(terms.get(0).get("revoked").asText()).isEqualTo("STOPPED");
            Instant electedAt = Instant.parse(terms.get(0).get("electedAt").asText());
            assertThat(Duration.between(stoppedAt, electedAt)).as("from the first's stop to the second's election")
                    .isLessThan(Duration.ofSeconds(10));
        } finally {
            first.destroyForcibly();
        }
    }

    @Test
    void leaderHelpListsTheLockOptionsAndNoStoreOnlyOne() {
        CliRun run = CliRun.of("leader", "--help");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("--redis-uri").contains("--pg-url").contains("--dynamodb-endpoint")
                // as options (--redis-uri's own description names --redis-store-uri)
                .doesNotContain("--s3-endpoint=").doesNotContain("--redis-store-uri=").doesNotContain("--gcs-endpoint=")
                .doesNotContain("--azure-blob-endpoint=");
    }

    @Test
    void leaderRefusesALockWithoutAServerUnlessEmbedded() {
        CliRun run = CliRun.of("leader", "--lock", "postgres", "--name", "n");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.err()).contains("--pg-url");
        CliRun embedded = CliRun.of("leader", "--name", "n", "--embedded", "--for", "1s", "--ttl", "500ms");
        assertThat(embedded.exitCode()).as(embedded.toString()).isZero();
        assertThat(embedded.out()).contains("elected, epoch").contains("revoked, epoch").contains("stopped after 1 term");
    }

    @Test
    void tortureLeadershipKeepsOneLeaderPerEpochAndRefusesZombies() {
        CliRun run = CliRun.of("torture", "--leadership", "--redis-uri", redis, "--workers", "4", "--duration", "4s",
                "--ttl", "200ms", "--pause-probability", "0.2", "--faults", "none", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("terms").asLong()).as("terms").isGreaterThanOrEqualTo(3);
        List<Long> epochs = new ArrayList<>();
        report.get("epochs").forEach(epoch -> epochs.add(epoch.asLong()));
        assertThat(epochs).isSorted().doesNotHaveDuplicates();
        assertThat(report.get("writesAccepted").asLong()).isPositive();
        assertThat(report.get("zombieWritesRefused").asLong()).as("zombie writes refused").isPositive();
        assertThat(report.get("handOvers").asLong()).as("hand-overs").isPositive();
        assertThat(report.get("historyViolations").asLong()).isZero();
    }

    /** On a lock server the CLI started, restarted empty: epochs still increase and the store's history holds. */
    @Test
    void tortureLeadershipUnderALockServerRestartKeepsEpochsIncreasing() {
        CliRun run = CliRun.of("torture", "--leadership", "--lock", "redis", "--workers", "3", "--duration", "3s",
                "--ttl", "200ms", "--pause-probability", "0.2", "--faults", "restart-lock-server", "--fault-interval",
                "700ms", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("faultsInjected").asLong()).isPositive();
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("historyViolations").asLong()).isZero();
    }

    private static long epochIn(String line) {
        return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
    }

    private static Thread read(Process process, List<String> lines) {
        Thread thread = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
