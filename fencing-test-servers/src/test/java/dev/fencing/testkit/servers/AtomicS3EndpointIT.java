package dev.fencing.testkit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The atomic S3 endpoint lets exactly one of many racing {@code If-None-Match: *} puts win, every round. */
class AtomicS3EndpointIT {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void exactlyOneRacingCreateWinsEveryRound() throws Exception {
        String base = TestServers.s3().atomicEndpoint() + "/atomic-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base)).PUT(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        for (int round = 0; round < 10; round++) {
            URI object = URI.create(base + "/key-" + round);
            List<CompletableFuture<HttpResponse<Void>>> racers = new ArrayList<>();
            for (int writer = 0; writer < 12; writer++) {
                racers.add(http.sendAsync(HttpRequest.newBuilder(object).header("If-None-Match", "*")
                        .PUT(HttpRequest.BodyPublishers.ofString("writer " + writer)).build(),
                        HttpResponse.BodyHandlers.discarding()));
            }
            long winners = racers.stream().map(CompletableFuture::join).filter(r -> r.statusCode() == 200).count();
            assertThat(winners).as("round %d", round).isEqualTo(1);
        }
    }
}
