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

/**
 * The schedule that breaks Redlock, as its critics said it would: {@code --nemesis skew} jumps the
 * clocks of a majority of the masters 30 s ahead (libfaketime), every lock key they hold expires
 * at once, and another worker is granted the lock while the holder, working inside its lease,
 * still believes it valid. The lease rule must name that overlap (exit 1) — and the fenced store
 * must still have refused every stale write: the history stays clean. That is the case for
 * fencing, in one run.
 */
class CliNemesisSkewIT {

    private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    @Test
    void aClockJumpOnAMajorityOfRedlockMastersLetsLeasesOverlapWhileTheStoreStaysFenced() throws Exception {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        if (!Files.exists(LIBFAKETIME)) {
            Skip.unlessCi("--nemesis skew needs " + LIBFAKETIME + " (apt-get install faketime)");
        }
        CliRun run = CliRun.of("torture", "--cluster", "redlock:5", "--nemesis", "skew", "--workers", "8", "--ttl", "2s",
                "--work", "500ms", "--duration", "12s", "--fault-interval", "300ms", "--seed", "3", "--json");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.INVARIANT_VIOLATED);
        JsonNode report = run.json();
        List<String> events = new ArrayList<>();
        report.get("nemesisEvents").forEach(e -> events.add(e.get("event").asText()));
        assertThat(events).as("the nemesis's events").contains("skew", "unskew");
        assertTheLeaseRuleAloneFired(run, report);
    }

    /**
     * A client's clock running slow: with {@code --client-processes}, {@code skew} runs one client's
     * lock-provider clock at a quarter of its speed for 1 to 3 s, so a worker of that client that
     * pauses past its TTL (1.5 s, real time) still believes its lease valid while the Redlock keys
     * (1 s, the servers' time) have expired and another worker holds the lock. The lease rule names
     * the overlap (exit 1); the store's history stays clean.
     */
    @Test
    void aClientWhoseClockRunsSlowOverlapsLeasesWhileTheStoreStaysFenced() throws Exception {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        CliRun run = CliRun.of("torture", "--cluster", "redlock:3", "--client-processes", "2", "--workers", "3",
                "--nemesis", "skew", "--pause-probability", "0.5", "--ttl", "1s", "--duration", "14s", "--fault-interval",
                "300ms", "--seed", "3", "--json");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.INVARIANT_VIOLATED);
        JsonNode report = run.json();
        List<String> targets = new ArrayList<>();
        report.get("nemesisEvents").forEach(e -> targets.add(e.get("event").asText() + " " + e.get("target").asText()));
        assertThat(targets).as("the nemesis's events").anyMatch(t -> t.matches("skew the clock of client\\d runs at a quarter of its speed.*"));
        assertTheLeaseRuleAloneFired(run, report);
    }

    /** Leases overlapped and that is every violation; the store still refused every stale write. */
    private static void assertTheLeaseRuleAloneFired(CliRun run, JsonNode report) {
        assertThat(report.get("leaseOverlaps").asLong()).as("two valid leases at once: %s", run).isPositive();
        List<String> violations = new ArrayList<>();
        report.get("violations").forEach(v -> violations.add(v.asText()));
        assertThat(violations).as("every violation is the lease rule's").allMatch(v -> v.startsWith(
                "two valid leases at once"));
        assertThat(report.get("historyViolations").asLong()).as("the store's history: every stale write refused")
                .isZero();
        assertThat(report.get("accepted").asLong()).isPositive();
    }

    @Test
    void skewOnServersThatCannotBeSkewedIsBadUsage() {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("--cluster needs network namespaces: " + reason));
        CliRun run = CliRun.of("torture", "--cluster", "etcd:3", "--nemesis", "skew", "--duration", "1s");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--nemesis skew moves the clocks of servers run under libfaketime");
    }
}
