package dev.fencing.cli;

import static dev.fencing.cli.SharedServers.args;
import static dev.fencing.cli.SharedServers.resource;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencing.testkit.Skip;
import dev.fencing.testkit.servers.SilentServer;
import dev.fencing.testkit.servers.TestServers;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --store gcs} through every command that takes a store: the demo on a testbench the CLI
 * starts itself, a worker and {@code inspect} on the shared testbench ({@code --gcs-endpoint}),
 * torture, a silent endpoint, and no server at all. Without a testbench or an endpoint the cases
 * that need one skip with the reason printed — and fail under {@code CI=true}.
 */
class CliGcsIT {

    private static String endpoint() {
        return SharedServers.gcsEndpoint();
    }

    /** {@code ./fencing demo --store gcs}: the CLI starts its own testbench; the zombie is refused. */
    @Test
    void theDemoOnAnEmbeddedTestbenchShowsTheZombieRefused() {
        endpoint(); // the testbench is there
        CliRun run = CliRun.of("demo", "--store", "gcs", "--ttl", "300ms", "--timeout", "30s");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out())
                .contains("gcs store on an embedded storage-testbench at http://127.0.0.1:")
                .contains("REFUSED: Stale fencing token")
                .contains("final: balance 150")
                .contains("client-2's deposit of 50 is lost");
    }

    /** A worker counts its increments into GCS; {@code inspect} then reads the value, the mark and the lock. */
    @Test
    void aWorkerAndInspectOnTheSharedTestbench() {
        String resource = resource();
        List<String> servers = List.of("--redis-uri", TestServers.redis().uri(), "--gcs-endpoint", endpoint(),
                "--timeout", "30s");
        CliRun run = CliRun.of(args(List.of("worker", "--lock", "redis", "--store", "gcs", "--resource", resource,
                "--increments", "20", "--json"), servers));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("accepted").asLong()).isEqualTo(20);
        assertThat(report.get("counter").asText()).isEqualTo("20");
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("store").asText()).startsWith("gcs").contains(endpoint());

        CliRun inspect = CliRun.of(args(List.of("inspect", "--store", "gcs", "--resource", resource, "--lock", "redis",
                "--json"), servers));
        assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
        JsonNode state = inspect.json();
        assertThat(state.get("value").asText()).isEqualTo("20");
        assertThat(state.get("state").asText()).isEqualTo("present");
        assertThat(state.get("highWaterMark").asLong()).isEqualTo(report.get("lastToken").asLong());
    }

    /** Torture on the shared testbench: pauses past the TTL, every invariant kept. */
    @Test
    void tortureWithPausesOnTheGcsStore() {
        CliRun run = CliRun.of("torture", "--lock", "redis", "--redis-uri", TestServers.redis().uri(), "--store", "gcs",
                "--gcs-endpoint", endpoint(), "--timeout", "30s", "--workers", "4", "--resources", "2", "--duration",
                "2s", "--ttl", "150ms", "--pause-probability", "0.3", "--faults", "none", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("accepted").asLong()).isPositive();
        assertThat(report.get("historyViolations").asLong()).isZero();
    }

    /** A GCS endpoint that accepts and never answers: exit 3, one line naming it, within the bound. */
    @Test
    @Timeout(60)
    void aSilentEndpointIsUnreachableInOneLine() {
        try (SilentServer silent = SilentServer.start()) {
            CliRun run = CliRun.of("inspect", "--store", "gcs", "--resource", "silent", "--gcs-endpoint",
                    "http://" + silent.hostPort(), "--timeout", "2s");
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
            assertThat(run.err()).contains("GCS at http://" + silent.hostPort()).contains("could not be reached")
                    .contains("--gcs-endpoint").doesNotContain("\tat ");
        }
    }

    /** Neither an endpoint nor a testbench: exit 3 saying how to get one, nothing started. */
    @Test
    void withoutAServerTheDemoSaysHowToGetOne() {
        if (System.getenv("FENCING_GCS_ENDPOINT") != null) {
            Skip.because("FENCING_GCS_ENDPOINT is set: there is a server");
        }
        String before = System.getProperty("fencing.gcs.testbench");
        System.setProperty("fencing.gcs.testbench", "/nonexistent/gcs-testbench");
        try {
            CliRun run = CliRun.of("demo", "--store", "gcs", "--ttl", "300ms");
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
            assertThat(run.err()).contains("the gcs store has no server (give --gcs-endpoint URL)")
                    .contains("FENCING_GCS_ENDPOINT").contains("FENCING_GCS_TESTBENCH");
        } finally {
            if (before == null) {
                System.clearProperty("fencing.gcs.testbench");
            } else {
                System.setProperty("fencing.gcs.testbench", before);
            }
        }
    }
}
