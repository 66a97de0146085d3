package dev.fencing.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlobLeaseClientBuilder;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.RecordingListener;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The adversary's checklist against {@link AzureBlobFencedStore} on Azurite: the holder and the
 * zombie are stores on clients of their own, as two processes are.
 */
class AzureBlobAdversaryIT {

    private static final String LOCK = "orders";

    private final String container = Blobs.newContainer();

    private FencedStore store(Policy policy, RecordingListener listener) {
        return AzureBlobFencedStore.builder(Blobs.container(container)).policy(policy).listener(listener).build();
    }

    private FencedStore store() {
        return store(Policy.MONOTONIC, new RecordingListener());
    }

    private static FencingToken token(long value) {
        return FencingToken.of(LOCK, value);
    }

    private static String key(String name) {
        return name + "-" + UUID.randomUUID();
    }

    /**
     * A zombie at 2 reads the value; the holder at 3 writes exactly the same bytes; the zombie's
     * upload, conditioned on the ETag it read, must be refused. On a server whose ETag is a hash
     * of the bytes (S3) the zombie's condition would still match and its write would land over 3.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void aZombieIsRefusedAfterTheHolderWroteIdenticalBytes(Policy policy) {
        FencedStore zombie = store(policy, new RecordingListener());
        FencedStore holder = store(policy, new RecordingListener());
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
                second.write(token(3), key, "v"); // same bytes, same token: only the ETag tells it apart
            }
            return current.orElseThrow() + "+";
        });

        assertThat(calls).as("the change was computed again on the state the identical write left").hasValue(2);
        assertThat(second.read(key)).contains(new StoredValue(key, "v+", 3));
    }

    /** Deleted at 5: a second delete at 3, a write at 4 are refused; the mark stays at 5. */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void aSecondDeleteWithAnOlderTokenIsRefusedAndTheMarkStays(Policy policy) {
        FencedStore holder = store(policy, new RecordingListener());
        FencedStore zombie = store(policy, new RecordingListener());
        String key = key("deleted");
        holder.write(token(4), key, "x");
        holder.delete(token(5), key);

        assertThatThrownBy(() -> zombie.delete(token(3), key)).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.write(token(4), key, "back")).isInstanceOf(StaleTokenException.class);
        if (policy == Policy.STRICT) {
            assertThatThrownBy(() -> zombie.delete(token(5), key)).isInstanceOf(StaleTokenException.class);
        } else {
            zombie.delete(token(5), key);
        }

        assertThat(zombie.read(key)).isEmpty();
        assertThat(zombie.highWaterMark(key)).isEqualTo(OptionalLong.of(5));
        holder.write(token(6), key, "again");
        assertThat(zombie.read(key)).contains(new StoredValue(key, "again", 6));
    }

    /** A proxy answers metadata names in upper case: the marks are still read, by the holder and the zombie. */
    @Test
    void metadataNamesInAnotherCaseAreStillTheMarks() {
        FencedStore holder = AzureBlobFencedStore.builder(Blobs.container(container, new RecasedMetadata())).build();
        FencedStore zombie = AzureBlobFencedStore.builder(Blobs.container(container, new RecasedMetadata())).build();
        String key = key("recased");
        holder.write(token(9), key, "nine");

        assertThatThrownBy(() -> zombie.write(token(8), key, "eight")).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.write(FencingToken.of("payments", 100), key, "other lock"))
                .isInstanceOf(ForeignTokenException.class);
        assertThatThrownBy(() -> zombie.delete(token(8), key)).isInstanceOf(StaleTokenException.class);
        assertThat(zombie.read(key)).contains(new StoredValue(key, "nine", 9));
        assertThat(zombie.highWaterMark(key)).isEqualTo(OptionalLong.of(9));
    }

    /** Metadata written by another tool as {@code FencingToken} (Azure keeps the case it was given) is the mark. */
    @Test
    void metadataWrittenInAnotherCaseIsTheMark() {
        BlobContainerClient other = Blobs.container(container);
        String key = key("other-tool");
        other.getBlobClient(key).getBlockBlobClient().uploadWithResponse(new BlockBlobSimpleUploadOptions(
                BinaryData.fromString("by hand")).setMetadata(Map.of("FencingToken", "9", "FencingLock", LOCK)), null,
                Context.NONE);
        FencedStore zombie = store();

        assertThatThrownBy(() -> zombie.write(token(8), key, "eight")).isInstanceOf(StaleTokenException.class);
        assertThat(zombie.read(key)).contains(new StoredValue(key, "by hand", 9));
    }

    /** Lock names an encoding could confuse stay distinct: each key refuses the tokens of every other name. */
    @Test
    void lockNamesAnEncodingCouldConfuseAreDistinct() {
        List<String> locks = List.of("a b", "a+b", "a%20b", "a%2Bb", "A b", "a b ", "é", "e\u0301", "ключ/🔒", "%");
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

    /** A blob under an Azure lease refuses the upload with 412 LeaseIdMissing: passed on as it is, not retried as a race. */
    @Test
    void aLeasedBlobsRefusalIsPassedOnNotTakenForARace() {
        FencedStore store = store();
        String key = key("leased");
        store.write(token(1), key, "v");
        new BlobLeaseClientBuilder().blobClient(Blobs.container(container).getBlobClient(key)).buildClient()
                .acquireLease(-1);

        assertThatThrownBy(() -> store.write(token(2), key, "w")).isInstanceOfSatisfying(BlobStorageException.class,
                e -> assertThat(e.getErrorCode()).isEqualTo(BlobErrorCode.LEASE_ID_MISSING));
        assertThat(store.read(key)).contains(new StoredValue(key, "v", 1));
    }

    /** A container that does not exist is named, by reads and writes alike, and nothing is written. */
    @Test
    void aMissingContainerIsNamed() {
        FencedStore store = AzureBlobFencedStore.builder(Blobs.container("no-such-container")).build();
        assertThatThrownBy(() -> store.write(token(1), "k", "v")).hasMessageContaining("no-such-container")
                .hasMessageContaining("does not exist");
        assertThatThrownBy(() -> store.read("k")).hasMessageContaining("no-such-container")
                .hasMessageContaining("does not exist");
        assertThat(Blobs.service().getBlobContainerClient("no-such-container").exists()).isFalse();
    }

    /** Every refused write and delete of a zombie reaches its listener; the holder's writes too. */
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
        assertThat(zombie.read(key)).isEqualTo(Optional.of(new StoredValue(key, "ten", 10)));
    }
}
