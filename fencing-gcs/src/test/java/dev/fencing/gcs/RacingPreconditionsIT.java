package dev.fencing.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 * What the store trusts the server with, measured on the server itself through the plain client:
 * racing uploads on one object, each writer on a client of its own, have exactly one winner per
 * round ({@code ifGenerationMatch} on one generation, and {@code ifGenerationMatch=0} on an absent
 * object); and every upload gets a new generation, identical bytes and metadata included — so,
 * unlike an S3 ETag, the precondition tells two equal writes apart. If the testbench ever stops
 * arbitrating races, this fails, and the store's race tests would need a serializing proxy.
 */
@Timeout(120)
class RacingPreconditionsIT {

    private static final int WRITERS = 8;
    private static final int ROUNDS = 20;

    private final String bucket = Gcs.newBucket();
    private final List<Storage> clients = new ArrayList<>();
    private final ExecutorService pool = Executors.newFixedThreadPool(WRITERS);

    RacingPreconditionsIT() {
        for (int i = 0; i < WRITERS; i++) {
            clients.add(Gcs.client());
        }
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void racingGenerationMatchUploadsHaveExactlyOneWinnerPerRound() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            BlobId id = BlobId.of(bucket, "if-generation-" + round);
            long generation = clients.get(0).create(BlobInfo.newBuilder(id).build(), bytes("start")).getGeneration();
            int winners = race(id, generation);
            assertThat(winners).as("writers whose ifGenerationMatch=%d landed in round %d", generation, round).isEqualTo(1);
        }
    }

    @Test
    void racingCreatesHaveExactlyOneWinnerPerRound() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            int winners = race(BlobId.of(bucket, "create-" + round), 0);
            assertThat(winners).as("writers whose ifGenerationMatch=0 landed in round %d", round).isEqualTo(1);
        }
    }

    @Test
    void everyUploadGetsANewGenerationEvenForIdenticalBytesAndMetadata() {
        Set<Long> generations = new HashSet<>();
        BlobInfo same = BlobInfo.newBuilder(BlobId.of(bucket, "same-bytes")).setMetadata(Map.of("fencing-token", "1"))
                .build();
        for (int i = 0; i < 20; i++) {
            generations.add(clients.get(i % WRITERS).create(same, bytes("same")).getGeneration());
        }
        assertThat(generations).as("generations of 20 identical uploads").hasSize(20);
    }

    /** All writers upload {@code id} at once with {@code ifGenerationMatch}; how many landed. */
    private int race(BlobId id, long ifGenerationMatch) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            Storage client = clients.get(i);
            byte[] body = bytes("writer-" + i);
            results.add(pool.submit(() -> {
                go.await();
                try {
                    client.create(BlobInfo.newBuilder(id).build(), body,
                            Storage.BlobTargetOption.generationMatch(ifGenerationMatch));
                    return true;
                } catch (StorageException e) {
                    if (e.getCode() == 412) {
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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
