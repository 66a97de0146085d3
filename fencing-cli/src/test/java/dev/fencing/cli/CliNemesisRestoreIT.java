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
 * Old state comes back to a whole cluster: {@code torture --cluster KIND:N --nemesis restore}
 * snapshots the members before the run and puts the snapshot back at every fault, so the cluster
 * forgets every grant it made — while the torture's provider, which saw them, lives on. No token may be granted twice, no lease may be valid beside a newer one, and the
 * store's history must stay clean (PostgreSQL's session locks die with the server, so there the
 * lease rule only counts); grants may stop for a while (a provider that saw a newer
 * revision or zxid refuses until the cluster passes it).
 */
class CliNemesisRestoreIT {

    @ParameterizedTest
    @ValueSource(strings = {"etcd:3", "zookeeper:3", "redlock:3", "postgres:2"})
    void aClusterRestoredFromAnOlderSnapshotRepeatsNoTokenAndOverlapsNoLease(String cluster, @TempDir Path dir)
            throws Exception {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        CliRun run = CliRun.of("torture", "--cluster", cluster, "--nemesis", "restore", "--workers", "4",
                "--duration", "9s", "--fault-interval", "300ms", "--ttl", "1s", "--seed", "5", "--json", "--timeline",
                dir.resolve("run.html").toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).as(run.toString()).isTrue();
        List<String> events = new ArrayList<>();
        report.get("nemesisEvents").forEach(e -> events.add(e.get("event").asText()));
        assertThat(events).as("the nemesis's events: %s", run).startsWith("snapshot").contains("restore", "restarting");
        assertThat(report.get("accepted").asLong()).as("increments accepted").isPositive();
        assertThat(report.get("leasesChecked").asLong()).isPositive();
        if (!cluster.startsWith("postgres")) { // a restart drops PostgreSQL's session locks: overlaps only counted
            assertThat(report.get("leaseOverlaps").asLong()).as("two valid leases at once").isZero();
        }
        assertThat(report.get("historyViolations").asLong()).isZero();
        assertThat(Files.readString(dir.resolve("run.html"))).as("the timeline page")
                .contains("restore: every member killed");
    }

    /**
     * {@code --nemesis restore-member}: one member alone (the leader first) is killed, its data put
     * back to the snapshot taken before the run, and started, while the other two remember
     * everything: it must rejoin without a token granted twice or a lease overlapping a newer one.
     */
    @Test
    void oneMemberRestoredAloneRejoinsWithoutRepeatingATokenOrOverlappingALease(@TempDir Path dir) throws Exception {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        CliRun run = CliRun.of("torture", "--cluster", "zookeeper:3", "--nemesis", "restore-member", "--workers", "4",
                "--duration", "9s", "--fault-interval", "300ms", "--ttl", "1s", "--seed", "5", "--json", "--timeline",
                dir.resolve("run.html").toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).as(run.toString()).isTrue();
        List<String> targets = new ArrayList<>();
        report.get("nemesisEvents").forEach(e -> targets.add(e.get("event").asText() + " " + e.get("target").asText()));
        assertThat(targets).as("the nemesis's events: %s", run)
                .anyMatch(t -> t.matches("restore zk\\d killed, its data replaced by the snapshot .*"));
        assertThat(report.get("accepted").asLong()).as("increments accepted").isPositive();
        assertThat(report.get("leaseOverlaps").asLong()).as("two valid leases at once").isZero();
        assertThat(report.get("historyViolations").asLong()).isZero();
    }
}
