package dev.fencing.bench;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.fencing.cli.backends.ConnectionOptions;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.gcs.GcsFencedStore;
import dev.fencing.testkit.servers.GcsTestServer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Comparison 13: the fenced GCS store's write against plain uploads of the same bytes, on the
 * endpoint given ({@code --gcs-endpoint}) or on Google's storage-testbench started here from
 * {@code ../shared/gcs-testbench}, all contenders in one run on one server.
 */
final class GcsComparisons extends Comparisons {

    private final ConnectionOptions connections;

    GcsComparisons(BenchSession session, ConnectionOptions connections) {
        super(session);
        this.connections = connections;
    }

    void run(BenchRunner runner) throws Exception {
        String server = connections.gcsEndpoint().map(e -> "the GCS endpoint " + e)
                .orElse("storage-testbench 0.45 (Python, gunicorn), same machine");
        String endpoint = connections.gcsEndpoint().orElseGet(() -> {
            GcsTestServer testbench = GcsTestServer.launch(); // says how to get one when there is none
            resources.push(testbench::stop);
            return testbench.endpoint();
        });
        Storage storage = StorageOptions.http().setHost(endpoint).setProjectId(GcsTestServer.PROJECT)
                .setCredentials(NoCredentials.getInstance()).build().getService();
        resources.push(storage::close);
        String bucket = "bench-" + UUID.randomUUID().toString().substring(0, 8);
        GcsTestServer.external(endpoint).createBucket(bucket);
        FencedStore fenced = GcsFencedStore.create(storage, bucket);
        // above any mark an earlier run left on a server given by an option: microseconds of the clock
        AtomicLong tokens = new AtomicLong(System.currentTimeMillis() * 1000);
        BlobInfo plain = BlobInfo.newBuilder(BlobId.of(bucket, "plain")).build();
        BlobId byHand = BlobId.of(bucket, "by-hand");
        add(13, "GCS (storage-testbench): fenced write vs plain upload", runner.latency(List.of(
                new BenchRunner.Contender("plain upload (objects.insert, no precondition)", (w, i) ->
                        storage.create(plain, body(i))),
                new BenchRunner.Contender("plain get + upload with ifGenerationMatch, written by hand", (w, i) -> {
                    var current = storage.get(byHand);
                    storage.create(BlobInfo.newBuilder(byHand).build(), body(i), Storage.BlobTargetOption
                            .generationMatch(current == null ? 0 : current.getGeneration()));
                }),
                new BenchRunner.Contender("GcsFencedStore.write (metadata read + conditional upload)", (w, i) ->
                        fenced.write(FencingToken.of("bench", tokens.incrementAndGet()), "fenced", "payload " + i)))),
                Map.of("server", server));
    }

    private static byte[] body(long i) {
        return ("payload " + i).getBytes(StandardCharsets.UTF_8);
    }
}
