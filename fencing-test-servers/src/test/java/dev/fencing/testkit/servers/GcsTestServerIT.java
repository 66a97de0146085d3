package dev.fencing.testkit.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The storage-testbench as the testkit runs it: it answers {@code GET /} and creates buckets; a
 * kill leaves no gunicorn process of it (master and worker); a start brings it back, empty. Skips
 * with the reason printed where there is no testbench, and fails under {@code CI=true}.
 *
 * <p>Measured: a worker whose master was killed with SIGKILL exits on its own about 3 s later, so
 * this test passes with or without {@code ChildProcess} ending the descendants too; that covers a
 * worker that cannot notice (paused, stuck) and the exit hook, which does not wait.
 */
@Timeout(120)
class GcsTestServerIT {

    private static void requireTestbench() {
        GcsTestServer.whyUnavailable().ifPresent(why -> {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new IllegalStateException("CI=true, and the GCS tests would be skipped: " + why);
            }
            System.err.println("SKIPPED: " + why);
            Assumptions.abort(why);
        });
    }

    @Test
    void killEndsTheWholeProcessTreeAndStartBringsItBack() throws Exception {
        requireTestbench();
        Assumptions.assumeTrue(System.getenv("FENCING_GCS_ENDPOINT") == null, "an external endpoint: nothing to kill");
        GcsTestServer server = GcsTestServer.launch();
        try {
            int port = URI.create(server.endpoint()).getPort();
            assertThat(get(server.endpoint() + "/")).isEqualTo("OK");
            server.createBucket("smoke");
            assertThat(get(server.endpoint() + "/storage/v1/b/smoke")).contains("\"name\":\"smoke\"");
            List<ProcessHandle> gunicorns = gunicornsOn(port);
            assertThat(gunicorns).as("gunicorn's master and its worker").hasSizeGreaterThanOrEqualTo(2);

            server.kill();

            await().atMost(Duration.ofSeconds(30)).until(() -> gunicorns.stream().noneMatch(ProcessHandle::isAlive));
            server.start();
            assertThat(get(server.endpoint() + "/")).isEqualTo("OK");
            assertThat(get(server.endpoint() + "/storage/v1/b/smoke")).as("in memory: the bucket is gone")
                    .contains("404");
        } finally {
            server.stop();
        }
    }

    private static List<ProcessHandle> gunicornsOn(int port) {
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine()
                .filter(c -> c.contains("gunicorn") && c.contains("127.0.0.1:" + port)).isPresent()).toList();
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? response.body().strip() : response.statusCode() + " " + response.body();
    }
}
