package dev.fencing.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.RecordingListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An adversary's attacks on {@link AzureBlobFencedStore} against Azurite, each store on a client of
 * its own as separate processes have.
 */
class AzureBlobAttackIT {

    private static final String LOCK = "orders";

    private final String container = Blobs.newContainer();

    private FencedStore store(Policy policy) {
        return AzureBlobFencedStore.builder(Blobs.container(container)).policy(policy).build();
    }

    private FencedStore store() {
        return store(Policy.MONOTONIC);
    }

    private static FencingToken token(long value) {
        return FencingToken.of(LOCK, value);
    }

    private static String key(String name) {
        return name + "-" + UUID.randomUUID();
    }

    // ---- equal is not same ----

    /** An empty value, a tombstone, a blob of zero bytes written by another tool: three different things in load. */
    @Test
    void anEmptyValueIsNotATombstone() {
        FencedStore a = store();
        FencedStore b = store();
        String key = key("empty");
        a.write(token(1), key, "");
        assertThat(b.read(key)).contains(new StoredValue(key, "", 1));
        b.delete(token(2), key);
        assertThat(a.read(key)).isEmpty();
        assertThat(a.highWaterMark(key)).isEqualTo(OptionalLong.of(2));
        a.write(token(2), key, ""); // the delete's token again, MONOTONIC: a put after a delete is a put
        assertThat(b.read(key)).contains(new StoredValue(key, "", 2));
        b.delete(token(2), key);
        b.delete(token(2), key); // a second delete
        assertThat(a.read(key)).isEmpty();
        assertThatThrownBy(() -> a.write(token(1), key, "")).isInstanceOf(StaleTokenException.class);
        assertThat(a.highWaterMark(key)).isEqualTo(OptionalLong.of(2));
    }

    /** Under STRICT a put with the delete's token is refused, and so is a second delete. */
    @Test
    void strictRefusesAPutAfterADeleteWithTheSameToken() {
        FencedStore a = store(Policy.STRICT);
        FencedStore b = store(Policy.STRICT);
        String key = key("strict-delete");
        a.write(token(1), key, "x");
        a.delete(token(2), key);
        assertThatThrownBy(() -> b.write(token(2), key, "")).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> b.delete(token(2), key)).isInstanceOf(StaleTokenException.class);
        assertThat(b.read(key)).isEmpty();
    }

    // ---- old state comes back, and writes that skip the store: documented limits ----
    // The mark lives in the blob (docs/azure-blob.md, "The mark lives in the blob"): whoever writes
    // the blob without the store can set it back or erase it, as a direct UPDATE can a JDBC store's.
    // These tests pin that limit as it is, so a change to it fails here and the docs move with it.

    /**
     * A tool (a backup restore, a re-upload of a saved copy, a copy from a snapshot) puts back the
     * blob as it was at token 5, metadata included, after the holder wrote at 9. The store trusts
     * the blob's own metadata as the mark, so the mark is 5 again and a zombie at 6 overwrites 9.
     */
    @Test
    void aBlobRestoredWithItsOldMetadataTakesTheMarkBack() {
        FencedStore holder = store();
        FencedStore zombie = store();
        BlobContainerClient tool = Blobs.container(container);
        String key = key("restored");
        holder.write(token(5), key, "five");
        BlobProperties saved = tool.getBlobClient(key).getProperties();
        String savedValue = tool.getBlobClient(key).downloadContent().toString();
        holder.write(token(9), key, "nine");

        tool.getBlobClient(key).getBlockBlobClient().uploadWithResponse(new BlockBlobSimpleUploadOptions(
                BinaryData.fromString(savedValue)).setMetadata(saved.getMetadata()), null, Context.NONE);

        assertThat(zombie.highWaterMark(key)).as("the mark went back to the restored blob's").isEqualTo(OptionalLong.of(5));
        zombie.write(token(6), key, "six");
        assertThat(zombie.read(key)).as("a zombie at 6 overwrote the write at 9").contains(new StoredValue(key, "six", 6));
    }

    /** A snapshot taken at 5, copied back over the blob after the holder wrote 9. */
    @Test
    void aSnapshotCopiedBackTakesTheMarkBack() {
        FencedStore holder = store();
        FencedStore zombie = store();
        BlobContainerClient tool = Blobs.container(container);
        String key = key("snapshot");
        holder.write(token(5), key, "five");
        String snapshotUrl = tool.getBlobClient(key).createSnapshot().getBlobUrl();
        holder.write(token(9), key, "nine");

        tool.getBlobClient(key).beginCopy(snapshotUrl, null).waitForCompletion();

        assertThat(zombie.highWaterMark(key)).as("the mark went back to the snapshot's").isEqualTo(OptionalLong.of(5));
    }

    /** Another tool sets the blob's metadata (Azure replaces all of it): the mark is gone and a token 1 write lands. */
    @Test
    void anotherToolSettingMetadataErasesTheMark() {
        FencedStore holder = store();
        FencedStore zombie = store();
        String key = key("set-metadata");
        holder.write(token(9), key, "nine");
        Blobs.container(container).getBlobClient(key).setMetadata(Map.of("owner", "reporting"));

        zombie.write(token(1), key, "one");
        assertThat(zombie.read(key)).as("token 1 wrote over a key fenced at 9").contains(new StoredValue(key, "one", 1));
    }

    /** Another tool uploads plain bytes over the key (no toolkit metadata): the mark is gone. */
    @Test
    void aPlainUploadByAnotherToolErasesTheMark() {
        FencedStore holder = store();
        FencedStore zombie = store();
        String key = key("plain-upload");
        holder.write(token(9), key, "nine");
        Blobs.container(container).getBlobClient(key).upload(BinaryData.fromString("by hand"), true);

        zombie.write(token(1), key, "one");
        assertThat(zombie.read(key)).as("token 1 wrote over a key fenced at 9").contains(new StoredValue(key, "one", 1));
    }

    /** Another tool deletes the blob (Delete Blob, not a fenced delete): the mark is gone. */
    @Test
    void aBlobDeletedByAnotherToolLosesItsMark() {
        FencedStore holder = store();
        FencedStore zombie = store();
        String key = key("deleted-by-hand");
        holder.write(token(9), key, "nine");
        Blobs.container(container).getBlobClient(key).delete();

        zombie.write(token(1), key, "one");
        assertThat(zombie.read(key)).as("token 1 wrote over a key fenced at 9").contains(new StoredValue(key, "one", 1));
    }

    // ---- one key, many spellings ----

    /** Two different keys must be two different blobs: a write to one is not read from the other. */
    @ParameterizedTest(name = "[{index}] ''{0}'' vs ''{1}''")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "a/b|a%2Fb",
        "a b|a%20b",
        "a+b|a b",
        "a/./b|a/b",
        "a/../b|b",
        "x.|x",
        "x/|x",
        "/x|x",
        "a//b|a/b",
        "X|x",
        "\u00e9|e\u0301",
        "a%25b|a%b",
        "./x|x",
        "x..|x",
        "a?b|a",
        "a#b|a",
        "a;b|a",
        "x/..|x",
        "x/.|x",
        "x/%2E|x/.",
        "x/%2e%2e|x/..",
        "a%5Cb|a/b",
    })
    void twoSpellingsAreTwoKeys(String first, String second) {
        FencedStore one = store();
        FencedStore other = store();
        String base = UUID.randomUUID() + "/";
        String k1 = base + first;
        String k2 = base + second;
        one.write(FencingToken.of("first", 5), k1, "first");

        assertThat(other.read(k2)).as("'%s' read after a write to '%s'", k2, k1).isEmpty();
        other.write(FencingToken.of("second", 1), k2, "second");
        assertThat(one.read(k1)).as("'%s' after a write to '%s'", k1, k2).contains(new StoredValue(k1, "first", 5));
    }

    /**
     * Azure stores a backslash in a blob name as a slash (measured: the key {@code id\x} is listed as
     * the blob {@code id/x}), so {@code a\b} and {@code a/b} would be one blob: one key's writes
     * read from, and fenced by, the other's. A key, or a prefix, with a backslash must be refused.
     */
    @Test
    void aBackslashKeyIsNotTheSlashKey() {
        FencedStore one = store();
        FencedStore other = store();
        String base = UUID.randomUUID().toString();
        one.write(FencingToken.of("first", 5), base + "/x", "slash");

        assertThatThrownBy(() -> other.write(FencingToken.of("second", 1), base + "\\x", "backslash"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backslash");
        assertThatThrownBy(() -> other.read(base + "\\x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AzureBlobFencedStore.builder(Blobs.container(container)).keyPrefix(base + "\\"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backslash");
        assertThat(one.read(base + "/x")).contains(new StoredValue(base + "/x", "slash", 5));
    }

    /** A prefix near the limit and keys that differ only past Azure's 1024 characters: two blobs, or refused. */
    @Test
    void keysDifferingPastTheNameLimitAreNotOneBlob() {
        String prefix = "p".repeat(1000);
        FencedStore one = AzureBlobFencedStore.builder(Blobs.container(container)).keyPrefix(prefix).build();
        FencedStore other = AzureBlobFencedStore.builder(Blobs.container(container)).keyPrefix(prefix).build();
        String common = "k".repeat(100);
        try {
            one.write(FencingToken.of("first", 5), common + "1", "first");
        } catch (RuntimeException refused) {
            return; // refused: no confusion
        }
        assertThat(other.read(common + "2")).isEmpty();
    }

    /** Token metadata another tool wrote in other spellings of a number. */
    @ParameterizedTest
    @CsvSource({"01,1", "+9,9", "-1,-1", "0009,9"})
    void tokenSpellings(String stored, long mark) {
        String key = key("spelling");
        Blobs.container(container).getBlobClient(key).getBlockBlobClient().uploadWithResponse(
                new BlockBlobSimpleUploadOptions(BinaryData.fromString("x")).setMetadata(Map.of("fencingtoken", stored,
                        "fencinglock", LOCK)), null, Context.NONE);
        assertThat(store().highWaterMark(key)).isEqualTo(OptionalLong.of(mark));
    }

    /** Token metadata that is not a long: reads and writes fail closed. */
    @ParameterizedTest
    @CsvSource({"1e3", "9223372036854775808", "0x10", "9.0", "nine"})
    void tokensThatAreNotLongsFailClosed(String stored) {
        String key = key("bad-token");
        Blobs.container(container).getBlobClient(key).getBlockBlobClient().uploadWithResponse(
                new BlockBlobSimpleUploadOptions(BinaryData.fromString("x")).setMetadata(Map.of("fencingtoken", stored,
                        "fencinglock", LOCK)), null, Context.NONE);
        assertThatThrownBy(() -> store().write(token(Long.MAX_VALUE), key, "y")).isInstanceOf(IllegalStateException.class);
        assertThat(Blobs.container(container).getBlobClient(key).downloadContent().toString()).isEqualTo("x");
    }

    /** An Azure lease broken by its owner: the next fenced write lands; a stale one still does not. */
    @Test
    void aBrokenLeaseLetsTheHolderWriteAndTheMarkHolds() {
        FencedStore holder = store();
        FencedStore zombie = store();
        String key = key("lease");
        holder.write(token(3), key, "three");
        var lease = new com.azure.storage.blob.specialized.BlobLeaseClientBuilder()
                .blobClient(Blobs.container(container).getBlobClient(key)).buildClient();
        lease.acquireLease(15);
        assertThatThrownBy(() -> holder.write(token(4), key, "four"))
                .isInstanceOf(com.azure.storage.blob.models.BlobStorageException.class);
        lease.breakLeaseWithResponse(0, null, null, Context.NONE);
        holder.write(token(4), key, "four");
        assertThatThrownBy(() -> zombie.write(token(3), key, "three again")).isInstanceOf(StaleTokenException.class);
        assertThat(zombie.read(key)).contains(new StoredValue(key, "four", 4));
    }

    // ---- concurrency ----

    /** N clients racing writes with tokens 1..N on one key: the highest token's value and mark remain. */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void racingWritersLeaveTheHighestToken(Policy policy) throws Exception {
        int writers = 6;
        List<FencedStore> stores = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            stores.add(store(policy));
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int round = 0; round < 8; round++) {
                String key = key("race");
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < writers; i++) {
                    int t = i + 1;
                    FencedStore s = stores.get(i);
                    done.add(pool.submit(() -> {
                        start.await();
                        try {
                            if (t % 2 == 0) {
                                s.write(token(t), key, "v" + t);
                            } else {
                                s.update(token(t), key, v -> "v" + t);
                            }
                        } catch (StaleTokenException refused) {
                            // a lower token after a higher one
                        } catch (ConcurrentUpdateException gaveUp) {
                            // a lower token whose every upload met another writer's (up to five): on a busy
                            // machine more of them overlap. The highest token must still land.
                            if (t == writers) {
                                throw gaveUp;
                            }
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : done) {
                    f.get();
                }
                assertThat(stores.get(0).read(key)).contains(new StoredValue(key, "v" + writers, writers));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- unclear replies ----

    /** A 500 answered after the upload landed (a gateway's): the write is proved by its id, counted once. */
    @Test
    void aServerErrorAfterTheUploadLandedIsWrittenOnce() {
        ServerErrorAfterPut gateway = new ServerErrorAfterPut();
        FencedStore lossy = AzureBlobFencedStore.builder(Blobs.container(container, gateway)).build();
        FencedStore other = store();
        String key = key("five-hundred");
        other.write(token(1), key, "41");
        gateway.armed.set(1);

        StoredValue written = lossy.update(token(2), key, v -> Integer.toString(Integer.parseInt(v.orElseThrow()) + 1));

        assertThat(gateway.replaced).hasValue(1);
        assertThat(written).isEqualTo(new StoredValue(key, "42", 2));
        assertThat(other.read(key)).contains(new StoredValue(key, "42", 2));
    }

    /**
     * A zombie at 5 checked the mark (4), then its upload is slow to reach the server: it gives up
     * within the request timeout (unknown, not written), the holder at 6 writes, then the zombie's
     * upload arrives — its ETag condition is stale by then, so 6 stays.
     */
    @Test
    void aSlowUploadArrivingAfterANewerHolderIsRefused() throws Exception {
        LatePut network = new LatePut(Duration.ofSeconds(3));
        FencedStore zombie = AzureBlobFencedStore.builder(Blobs.container(container, network))
                .requestTimeout(Duration.ofMillis(500)).build();
        FencedStore holder = store();
        String key = key("late");
        holder.write(token(4), key, "four");
        network.armed.set(1);

        long start = System.nanoTime();
        assertThatThrownBy(() -> zombie.write(token(5), key, "five")).isInstanceOf(WriteOutcomeUnknownException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("upload, then the read that decides").isLessThan(Duration.ofMillis(2500));

        holder.write(token(6), key, "six");
        assertThat(network.arrived.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(holder.read(key)).contains(new StoredValue(key, "six", 6));
        assertThatThrownBy(() -> zombie.write(token(5), key, "five")).isInstanceOf(StaleTokenException.class);
    }

    /** The same slow upload for a delete: it gives up within the bound, and a late tombstone does not hide 6. */
    @Test
    void aSlowTombstoneArrivingAfterANewerHolderIsRefused() throws Exception {
        LatePut network = new LatePut(Duration.ofSeconds(3));
        FencedStore zombie = AzureBlobFencedStore.builder(Blobs.container(container, network))
                .requestTimeout(Duration.ofMillis(500)).build();
        FencedStore holder = store();
        String key = key("late-delete");
        holder.write(token(4), key, "four");
        network.armed.set(1);

        assertThatThrownBy(() -> zombie.delete(token(5), key)).isInstanceOf(WriteOutcomeUnknownException.class);
        holder.write(token(6), key, "six");
        assertThat(network.arrived.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(holder.read(key)).contains(new StoredValue(key, "six", 6));
    }

    // ---- listener ----

    /** Refusals through update and writeIfUnchanged paths, and a delete's, each reach the listener once. */
    @Test
    void everyStaleRefusalReachesTheListenerOnce() {
        RecordingListener events = new RecordingListener();
        FencedStore zombie = AzureBlobFencedStore.builder(Blobs.container(container)).listener(events).build();
        FencedStore holder = store();
        String key = key("listener");
        holder.write(token(1), key, "one");
        // the holder writes between the zombie's read and its upload
        assertThatThrownBy(() -> zombie.update(token(2), key, v -> {
            holder.write(token(3), key, "three");
            return "two";
        })).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.delete(token(2), key)).isInstanceOf(StaleTokenException.class);
        assertThat(events.staleRejected()).isEqualTo(2);
        assertThat(events.accepted()).isZero();
    }
    /** A foreign lock's write, delete and update each reach the listener once, as a failure, and nothing else. */
    @Test
    void everyForeignRefusalReachesTheListenerOnce() {
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        FencingListener listener = new FencingListener() {
            @Override
            public void onStaleWriteRejected(StaleTokenException rejection) {
                events.add("stale");
            }

            @Override
            public void onWriteAccepted(FencingToken token, String key) {
                events.add("accepted");
            }

            @Override
            public void onWriteFailed(String key, FencingException failure) {
                events.add(failure.getClass().getSimpleName());
            }
        };
        FencedStore foreign = AzureBlobFencedStore.builder(Blobs.container(container)).listener(listener).build();
        FencedStore holder = store();
        String key = key("foreign-listener");
        holder.write(token(1), key, "one");
        FencingToken other = FencingToken.of("payments", 100);

        assertThatThrownBy(() -> foreign.write(other, key, "x")).isInstanceOf(ForeignTokenException.class);
        assertThatThrownBy(() -> foreign.delete(other, key)).isInstanceOf(ForeignTokenException.class);
        assertThatThrownBy(() -> foreign.update(other, key, v -> "x")).isInstanceOf(ForeignTokenException.class);
        assertThat(events).containsExactly("ForeignTokenException", "ForeignTokenException", "ForeignTokenException");
        assertThat(holder.read(key)).contains(new StoredValue(key, "one", 1));
    }
}
