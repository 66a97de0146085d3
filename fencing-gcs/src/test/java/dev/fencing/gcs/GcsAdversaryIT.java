package dev.fencing.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.RecordingListener;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The adversary's checklist against {@link GcsFencedStore} on the testbench: the holder and the
 * zombie are stores on clients of their own, as two processes are.
 */
class GcsAdversaryIT {

    private static final String LOCK = "orders";

    private final String bucket = Gcs.newBucket();

    private FencedStore store(Policy policy, RecordingListener listener) {
        return GcsFencedStore.builder(Gcs.client(), bucket).policy(policy).listener(listener).build();
    }

    private FencedStore store(Policy policy) {
        return store(policy, new RecordingListener());
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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---- equal is not same ----

    /**
     * A zombie at 2 reads the value; the holder at 3 writes exactly the same bytes; the zombie's
     * upload, conditioned on the generation it read, must be refused. On a server whose version is
     * a hash of the bytes (an S3 ETag) the zombie's condition would still match and land over 3.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void aZombieIsRefusedAfterTheHolderWroteIdenticalBytes(Policy policy) {
        FencedStore zombie = store(policy);
        FencedStore holder = store(policy);
        for (String value : List.of("same", "")) {
            String key = key("identical");
            zombie.write(token(1), key, value);

            assertThatThrownBy(() -> zombie.update(token(2), key, current -> {
                holder.write(token(3), key, value); // lands between the zombie's read and its upload
                return value;
            })).isInstanceOf(StaleTokenException.class);

            assertThat(holder.read(key)).contains(new StoredValue(key, value, 3));
            assertThatThrownBy(() -> zombie.write(token(2), key, value)).isInstanceOf(StaleTokenException.class);
            assertThat(zombie.read(key)).contains(new StoredValue(key, value, 3));
        }
    }

    /** The same holder on two processes: an update that raced an identical write is re-applied on the new state. */
    @Test
    void anUpdateRacingAnIdenticalWriteIsDecidedAgain() {
        FencedStore first = store();
        FencedStore second = store();
        String key = key("same-token");
        first.write(token(3), key, "v");
        AtomicInteger calls = new AtomicInteger();

        first.update(token(3), key, current -> {
            if (calls.incrementAndGet() == 1) {
                second.write(token(3), key, "v"); // same bytes, same token: only the generation tells it apart
            }
            return current.orElseThrow() + "+";
        });

        assertThat(calls).as("the change was computed again on the state the identical write left").hasValue(2);
        assertThat(second.read(key)).contains(new StoredValue(key, "v+", 3));
    }

    /** An empty value, a tombstone and a second delete: three different things. */
    @Test
    void anEmptyValueIsNotATombstoneAndASecondDeleteKeepsTheMark() {
        FencedStore a = store();
        FencedStore b = store();
        String key = key("empty");
        a.write(token(1), key, "");
        assertThat(b.read(key)).contains(new StoredValue(key, "", 1));
        b.delete(token(2), key);
        assertThat(a.read(key)).isEmpty();
        assertThat(a.highWaterMark(key)).isEqualTo(OptionalLong.of(2));
        b.delete(token(2), key); // a second delete
        assertThatThrownBy(() -> a.delete(token(1), key)).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> a.write(token(1), key, "")).isInstanceOf(StaleTokenException.class);
        assertThat(a.highWaterMark(key)).isEqualTo(OptionalLong.of(2));
        a.write(token(3), key, "again");
        assertThat(b.read(key)).contains(new StoredValue(key, "again", 3));
    }

    // ---- one key, many spellings: object names are byte-exact ----

    /** Two different keys must be two different objects: GCS compares names byte for byte. */
    @ParameterizedTest(name = "[{index}] ''{0}'' vs ''{1}''")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "a/b|a%2Fb", "a b|a%20b", "a+b|a b", "a/./b|a/b", "a/../b|b", "x/|x", "/x|x", "a//b|a/b", "X|x",
        "\u00e9|e\u0301", "a%25b|a%b", "\"x \"|x", "\u212b|\u00c5"
    })
    void twoSpellingsAreTwoObjects(String one, String other) {
        FencedStore holder = store();
        FencedStore zombie = store();
        String prefix = key("spelling") + "/";
        holder.write(token(9), prefix + one, "nine");

        zombie.write(token(1), prefix + other, "one"); // its own object: no mark yet
        assertThat(holder.read(prefix + one)).contains(new StoredValue(prefix + one, "nine", 9));
        assertThat(zombie.read(prefix + other)).contains(new StoredValue(prefix + other, "one", 1));
    }

    /** Names GCS refuses, which the testbench would store: refused before any request, naming the rule. */
    @ParameterizedTest
    @ValueSource(strings = {".", "..", ".well-known/acme-challenge/token"})
    void namesGcsRefusesAreRefusedBeforeAnyWrite(String key) {
        FencedStore store = store();
        assertThatThrownBy(() -> store.write(token(1), key, "v")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("GCS refuses");
        assertThat(Gcs.client().list(bucket).iterateAll()).isEmpty();
    }

    /** A prefix that makes a name longer than GCS's 1024 bytes: refused, nothing written. */
    @Test
    void aNameLongerThanGcsAllowsIsRefused() {
        FencedStore store = GcsFencedStore.builder(Gcs.client(), bucket).keyPrefix("p".repeat(900)).build();
        assertThatThrownBy(() -> store.write(token(1), "\u00e9".repeat(100), "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1024 bytes");
        assertThat(Gcs.client().list(bucket).iterateAll()).isEmpty();
    }

    // ---- the toolkit's metadata, written by others ----

    /** Metadata written by another tool as {@code Fencing-Token} (GCS keeps the case it was given) is the mark. */
    @Test
    void metadataWrittenInAnotherCaseIsTheMark() {
        String key = key("other-tool");
        Gcs.client().create(BlobInfo.newBuilder(BlobId.of(bucket, key))
                .setMetadata(Map.of("Fencing-Token", "9", "FENCING-LOCK", LOCK)).build(), bytes("by hand"));
        FencedStore zombie = store();

        assertThatThrownBy(() -> zombie.write(token(8), key, "eight")).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.write(FencingToken.of("payments", 100), key, "x"))
                .isInstanceOf(ForeignTokenException.class);
        assertThat(zombie.read(key)).contains(new StoredValue(key, "by hand", 9));
    }

    /** A stored token that is not a number fails closed: nothing is written over it. */
    @Test
    void aMalformedStoredTokenFailsClosed() {
        String key = key("bad-token");
        Gcs.client().create(BlobInfo.newBuilder(BlobId.of(bucket, key))
                .setMetadata(Map.of("fencing-token", "9e9", "fencing-lock", LOCK)).build(), bytes("x"));
        assertThatThrownBy(() -> store().write(token(Long.MAX_VALUE), key, "y")).isInstanceOf(IllegalStateException.class);
        assertThat(new String(Gcs.client().readAllBytes(BlobId.of(bucket, key)), StandardCharsets.UTF_8)).isEqualTo("x");
    }

    /**
     * A documented limit: the mark lives in the object, so another tool that uploads plain bytes
     * over the key (no toolkit metadata) erases it, and a token 1 write lands.
     */
    @Test
    void aPlainUploadByAnotherToolErasesTheMark() {
        FencedStore holder = store();
        FencedStore zombie = store();
        String key = key("plain-upload");
        holder.write(token(9), key, "nine");
        Gcs.client().create(BlobInfo.newBuilder(BlobId.of(bucket, key)).build(), bytes("by hand"));

        zombie.write(token(1), key, "one");
        assertThat(zombie.read(key)).as("token 1 wrote over a key fenced at 9").contains(new StoredValue(key, "one", 1));
    }

    /** Lock names an encoding could confuse stay distinct: each key refuses the tokens of every other name. */
    @Test
    void lockNamesAnEncodingCouldConfuseAreDistinct() {
        List<String> locks = List.of("a b", "a+b", "a%20b", "A b", "é", "e\u0301", "ключ/🔒", "%");
        FencedStore holder = store();
        FencedStore other = store();
        String prefix = key("locks");
        for (int i = 0; i < locks.size(); i++) {
            holder.write(FencingToken.of(locks.get(i), 1), prefix + i, "bound to " + i);
        }
        for (int i = 0; i < locks.size(); i++) {
            String key = prefix + i;
            for (int j = 0; j < locks.size(); j++) {
                FencingToken token = FencingToken.of(locks.get(j), 1_000);
                if (i == j) {
                    other.write(token, key, "rebound " + i);
                } else {
                    String bound = locks.get(i);
                    assertThatThrownBy(() -> other.write(token, key, "stolen"))
                            .as("lock %s writing a key bound to %s", locks.get(j), bound)
                            .isInstanceOfSatisfying(ForeignTokenException.class,
                                    e -> assertThat(e.boundResource()).isEqualTo(bound));
                }
            }
            assertThat(other.read(key)).contains(new StoredValue(key, "rebound " + i, 1_000));
        }
    }

    /** A bucket that does not exist is named by a write, and nothing is created; a read sees no object. */
    @Test
    void aMissingBucketIsNamed() {
        FencedStore store = GcsFencedStore.builder(Gcs.client(), "no-such-bucket-" + UUID.randomUUID()).build();
        assertThatThrownBy(() -> store.write(token(1), "k", "v")).isInstanceOf(StorageException.class)
                .hasMessageContaining("no-such-bucket").hasMessageContaining("does not exist");
        assertThat(store.read("k")).as("the client answers a missing bucket's object as no object").isEmpty();
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
            for (int round = 0; round < 6; round++) {
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
                            // a lower token whose every upload met another writer's: the highest must still land
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

    // ---- listener ----

    /** Every refused write, delete and update of a zombie reaches its listener once; the holder's writes too. */
    @Test
    void theListenerSeesEveryRefusedWrite() {
        RecordingListener holderEvents = new RecordingListener();
        RecordingListener zombieEvents = new RecordingListener();
        FencedStore holder = store(Policy.MONOTONIC, holderEvents);
        FencedStore zombie = store(Policy.MONOTONIC, zombieEvents);
        String key = key("listener");

        holder.write(token(10), key, "ten");
        assertThatThrownBy(() -> zombie.write(token(7), key, "seven")).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.delete(token(8), key)).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.update(token(9), key, v -> "nine")).isInstanceOf(StaleTokenException.class);

        assertThat(holderEvents.accepted()).isEqualTo(1);
        assertThat(zombieEvents.staleRejected()).as("the write, the delete and the update, each once").isEqualTo(3);
        assertThat(zombieEvents.accepted()).isZero();
        assertThat(zombie.read(key)).contains(new StoredValue(key, "ten", 10));
    }

    /** A store through a gRPC client is refused when built: the bound needs the HTTP transport. */
    @Test
    void aGrpcClientIsRefused() {
        Storage grpc = com.google.cloud.storage.StorageOptions.grpc().setHost(Gcs.server().endpoint())
                .setProjectId("p").setCredentials(com.google.cloud.NoCredentials.getInstance()).build().getService();
        assertThatThrownBy(() -> GcsFencedStore.builder(grpc, bucket)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JSON API over HTTP");
    }
}
