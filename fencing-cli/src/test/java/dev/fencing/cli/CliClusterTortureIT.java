package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencing.testkit.Skip;
import dev.fencing.testkit.servers.NetworkLab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bounded nemesis runs CI makes, one per clustered lock: {@code torture --cluster KIND:3} on
 * real members in network namespaces under partition, pause and kill, seed 7 (a class of its own,
 * so that it runs beside {@link CliTortureIT}).
 */
class CliClusterTortureIT {

    /**
     * {@code --cluster etcd:3}, {@code zookeeper:3} and {@code redlock:3}: three members, each in a network namespace
     * of its own, and the nemesis's partition, pause and kill in turn (a seed fixes its choices):
     * every invariant kept, and the summary names the seed and every fault with its time and target.
     */
    @ParameterizedTest
    @ValueSource(strings = {"etcd", "zookeeper", "redlock"})
    void tortureOnAClusterInNetworkNamespacesUnderTheNemesis(String kind, @TempDir Path dir) throws Exception {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        CliRun run = CliRun.of("torture", "--cluster", kind + ":3", "--nemesis", "partition,pause,kill", "--workers", "4",
                "--duration", "14s", "--fault-interval", "300ms", "--ttl", "1s", "--seed", "7", "--json", "--timeline",
                dir.resolve("run.html").toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).as(run.toString()).isTrue();
        assertThat(report.get("lock").asText()).contains(switch (kind) {
            case "etcd" -> "3-member etcd cluster";
            case "zookeeper" -> "3-member ZooKeeper ensemble";
            default -> "3 independent Redis masters";
        }, "network namespace");
        assertThat(report.get("seed").asLong()).isEqualTo(7);
        // each fault is held 1 to 3 s, a killed member then waited for: the third may end with the run
        assertThat(report.get("faultsInjected").asLong()).as("faults injected").isGreaterThanOrEqualTo(2);
        List<String> events = new ArrayList<>();
        report.get("nemesisEvents").forEach(e -> events.add(e.get("event").asText()));
        assertThat(events).as("the nemesis's events").contains("partition", "heal", "pause", "resume", "kill", "start");
        assertThat(report.get("accepted").asLong()).isPositive();
        assertThat(report.get("historyViolations").asLong()).isZero();
        assertThat(report.get("leasesChecked").asLong()).as("leases checked by the lease rule").isPositive();
        assertThat(report.get("leaseOverlaps").asLong()).as("two valid leases at once").isZero();
        String page = Files.readString(dir.resolve("run.html"));
        assertThat(page).as("the timeline page").startsWith("<!DOCTYPE html>").contains("<svg", "class=\"op ok",
                "class=\"grant\"", "class=\"fault\"", "seed 7").doesNotContain("class=\"op ok anomaly");
    }

    /**
     * {@code --cluster sentinel:3}: the redis lock through three Sentinels on a primary and two
     * replicas, each in a namespace of its own, under partition, pause and kill — failovers
     * included. Redis replicates asynchronously, so the provider does not claim exclusive leases
     * across a failover (the lease rule only counts overlaps here); the token invariants and the
     * store's history must hold all the same.
     */
    @Test
    void tortureThroughSentinelsUnderTheNemesisKeepsTheTokensAndTheStore(@TempDir Path dir) throws Exception {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        CliRun run = CliRun.of("torture", "--cluster", "sentinel:3", "--nemesis", "partition,pause,kill", "--workers",
                "4", "--duration", "14s", "--fault-interval", "300ms", "--ttl", "1s", "--seed", "7", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).as(run.toString()).isTrue();
        assertThat(report.get("lock").asText()).contains("3 Sentinels", "2 replicas", "network namespace");
        List<String> events = new ArrayList<>();
        report.get("nemesisEvents").forEach(e -> events.add(e.get("event").asText()));
        assertThat(events).as("the nemesis's events").contains("partition", "heal", "pause", "resume", "kill");
        assertThat(report.get("accepted").asLong()).isPositive();
        assertThat(report.get("leasesChecked").asLong()).isPositive();
        assertThat(report.get("historyViolations").asLong()).isZero();
    }

    /**
     * {@code --cluster postgres:2}: the postgres lock on a primary and its streaming replica, each in
     * a namespace of its own, under partition, pause and kill. With seed 7 the kill falls on the
     * primary: it is cut from its replica, killed with commits the replica never got, and the replica
     * is promoted — the counter rows come back older, and the tokens must still rise. A failover drops
     * every session lock while the holders' leases run on to their TTL, so the lease rule only counts
     * overlaps here; the token invariants and the store's history must hold.
     */
    @Test
    void tortureOnAPostgresPrimaryAndReplicaThroughAFailoverKeepsTheTokensAndTheStore(@TempDir Path dir)
            throws Exception {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        CliRun run = CliRun.of("torture", "--cluster", "postgres:2", "--nemesis", "partition,pause,kill", "--workers",
                "4", "--duration", "14s", "--fault-interval", "300ms", "--ttl", "1s", "--seed", "7", "--json",
                "--timeline", dir.resolve("run.html").toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).as(run.toString()).isTrue();
        assertThat(report.get("lock").asText()).contains("streaming replica", "network namespace");
        List<String> events = new ArrayList<>();
        report.get("nemesisEvents").forEach(e -> events.add(e.get("event").asText()));
        assertThat(events).as("the nemesis's events: %s", run).contains("partition", "heal", "pause", "resume", "kill",
                "promote");
        assertThat(report.get("accepted").asLong()).isPositive();
        assertThat(report.get("leasesChecked").asLong()).isPositive();
        assertThat(report.get("historyViolations").asLong()).isZero();
        assertThat(Files.readString(dir.resolve("run.html"))).contains("promote: pg2");
    }

    /**
     * {@code --client-processes 2}: the workers in two JVMs, each in a network namespace of its own
     * beside the etcd members, so the nemesis freezes one client whole (its first pause) and cuts one
     * client from the leader while the other still reaches it (its third partition). Every
     * invariant is checked over what both clients saw, merged: their histories on one clock, their
     * grants (no token twice across clients), their leases (the lease rule across processes).
     */
    @Test
    void clientsInNamespacesOfTheirOwnAreCutAndFrozenApartAndCheckedTogether(@TempDir Path dir) throws Exception {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        CliRun run = CliRun.of("torture", "--cluster", "etcd:3", "--client-processes", "2", "--workers", "2",
                "--nemesis", "partition,pause", "--duration", "18s", "--fault-interval", "300ms", "--ttl", "1s", "--seed",
                "7", "--json", "--timeline", dir.resolve("run.html").toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).as(run.toString()).isTrue();
        assertThat(report.get("clientProcesses").asInt()).isEqualTo(2);
        assertThat(report.get("store").asText()).contains("in the network lab");
        assertThat(report.get("acceptedByClient").get("client1").asLong()).as(run.toString()).isPositive();
        assertThat(report.get("acceptedByClient").get("client2").asLong()).as(run.toString()).isPositive();
        List<String> targets = new ArrayList<>();
        report.get("nemesisEvents").forEach(e -> targets.add(e.get("event").asText() + " " + e.get("target").asText()));
        assertThat(targets).as("the nemesis's events: %s", run).anyMatch(t -> t.matches("pause client\\d \\(a client.*"))
                .anyMatch(t -> t.matches("partition cut client\\d from the leader .*"));
        assertThat(report.get("leasesChecked").asLong()).isPositive();
        assertThat(report.get("leaseOverlaps").asLong()).as("two valid leases at once").isZero();
        assertThat(report.get("historyViolations").asLong()).isZero();
        assertThat(Files.readString(dir.resolve("run.html"))).contains("client1 w0", "client2 w1")
                .as("the parent's final reads have a lane of their own, not a worker's")
                .doesNotContain(">worker 0<");
    }
}
