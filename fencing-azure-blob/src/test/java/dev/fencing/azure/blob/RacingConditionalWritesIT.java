package dev.fencing.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the store trusts the server with, measured on the server itself through the plain SDK:
 * racing conditional uploads on one blob, each writer on a client of its own, have exactly one
 * winner per round ({@code If-Match} on one ETag, and {@code If-None-Match: *} on an absent blob);
 * and every upload gets a new ETag, identical bytes and metadata included ({@code 0x} and hex digits;
 * Azure quotes it, Azurite 3.37 does not, and the store sends it back as it came). If Azurite ever stops
 * arbitrating races, this fails, and the store's race tests would need a serializing proxy.
 */
@Timeout(120)
class RacingConditionalWritesIT {

    private static final int WRITERS = 8;
    private static final int ROUNDS = 25;

    private final String container = Blobs.newContainer();
    private final List<BlobContainerClient> clients = new ArrayList<>();
    private final ExecutorService pool = Executors.newFixedThreadPool(WRITERS);

    RacingConditionalWritesIT() {
        for (int i = 0; i < WRITERS; i++) {
            clients.add(Blobs.container(container));
        }
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void racingIfMatchUploadsHaveExactlyOneWinnerPerRound() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String blob = "if-match-" + round;
            String etag = clients.get(0).getBlobClient(blob).getBlockBlobClient()
                    .uploadWithResponse(new BlockBlobSimpleUploadOptions(BinaryData.fromString("start")), null, Context.NONE)
                    .getValue().getETag();
            int winners = race(blob, new BlobRequestConditions().setIfMatch(etag));
            assertThat(winners).as("writers whose If-Match %s landed in round %d", etag, round).isEqualTo(1);
        }
    }

    @Test
    void racingCreatesHaveExactlyOneWinnerPerRound() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            int winners = race("create-" + round, new BlobRequestConditions().setIfNoneMatch("*"));
            assertThat(winners).as("writers whose If-None-Match: * landed in round %d", round).isEqualTo(1);
        }
    }

    @Test
    void everyUploadGetsANewEtagEvenForIdenticalBytesAndMetadata() {
        Set<String> etags = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            BlockBlobSimpleUploadOptions same = new BlockBlobSimpleUploadOptions(BinaryData.fromString("same"))
                    .setMetadata(java.util.Map.of("fencingtoken", "1"));
            etags.add(clients.get(i % WRITERS).getBlobClient("same-bytes").getBlockBlobClient()
                    .uploadWithResponse(same, null, Context.NONE).getValue().getETag());
        }
        assertThat(etags).as("ETags of 20 identical uploads").hasSize(20)
                .allSatisfy(etag -> assertThat(etag).matches("\"?0x[0-9A-F]+\"?"));
    }

    /** All writers upload to {@code blob} at once under {@code condition}; how many landed. */
    private int race(String blob, BlobRequestConditions condition) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            BlobContainerClient client = clients.get(i);
            String body = "writer-" + i;
            results.add(pool.submit(() -> {
                go.await();
                try {
                    client.getBlobClient(blob).getBlockBlobClient().uploadWithResponse(
                            new BlockBlobSimpleUploadOptions(BinaryData.fromString(body)).setRequestConditions(condition),
                            Duration.ofSeconds(30), Context.NONE);
                    return true;
                } catch (BlobStorageException e) {
                    if (e.getStatusCode() == 412 || e.getStatusCode() == 409) {
                        return false;
                    }
                    throw e;
                }
            }));
        }
        go.countDown();
        int winners = 0;
        for (Future<Boolean> result : results) {
            winners += result.get(60, TimeUnit.SECONDS) ? 1 : 0;
        }
        return winners;
    }
}
