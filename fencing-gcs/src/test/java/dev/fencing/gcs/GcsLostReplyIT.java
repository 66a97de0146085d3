package dev.fencing.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.ReplyDroppingProxy;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Uploads that landed but whose reply was lost (a proxy swallows the reply to the next upload and
 * closes the connection): counted exactly once, never re-applied — whether nobody wrote in the
 * window (written, proved by the write id) or a writer with the same token replaced the object in
 * it (unknown). And what the client library does on its own with such a loss, which is why the
 * store sends its uploads once.
 */
class GcsLostReplyIT {

    private static final FencingToken TOKEN = FencingToken.of("counter", 2);
    private static final String UPLOAD = "POST /upload/";

    private final String bucket = Gcs.newBucket();
    private final ReplyDroppingProxy proxy = ReplyDroppingProxy.inFrontOf(Gcs.server().endpoint());
    private final String key = "counter-" + UUID.randomUUID();

    @AfterEach
    void close() {
        proxy.close();
    }

    private FencedStore direct(Policy policy) {
        return GcsFencedStore.builder(Gcs.client(), bucket).policy(policy).build();
    }

    private FencedStore throughProxy(Policy policy) {
        return GcsFencedStore.builder(Gcs.client(proxy.httpEndpoint()), bucket).policy(policy).build();
    }

    private static String plusOne(String value) {
        return Integer.toString(Integer.parseInt(value) + 1);
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void anUpdateWhoseReplyWasLostIsAppliedExactlyOnce(Policy policy) {
        direct(policy).write(FencingToken.of("counter", 1), key, "41");
        FencedStore lossy = throughProxy(policy);
        proxy.dropReplyTo(UPLOAD, () -> { });

        StoredValue written = lossy.update(TOKEN, key, v -> plusOne(v.orElseThrow()));

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(written).isEqualTo(new StoredValue(key, "42", 2));
        assertThat(direct(policy).read(key)).contains(new StoredValue(key, "42", 2));
    }

    @Test
    void anUpdateReplacedInTheWindowIsUnknownAndNotAppliedAgain() {
        FencedStore other = direct(Policy.MONOTONIC);
        other.write(FencingToken.of("counter", 1), key, "41");
        FencedStore lossy = throughProxy(Policy.MONOTONIC);
        proxy.dropReplyTo(UPLOAD, () -> other.write(TOKEN, key, "100"));

        assertThatThrownBy(() -> lossy.update(TOKEN, key, v -> plusOne(v.orElseThrow())))
                .isInstanceOf(WriteOutcomeUnknownException.class);

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(other.read(key)).as("the same-token write stays; the lost update is not applied on top of it")
                .contains(new StoredValue(key, "100", 2));
    }

    @Test
    void aWriteWhoseReplyWasLostIsWrittenAndAZombieIsStillRefused() {
        direct(Policy.MONOTONIC).write(FencingToken.of("counter", 1), key, "1");
        FencedStore lossy = throughProxy(Policy.MONOTONIC);
        proxy.dropReplyTo(UPLOAD, () -> { });

        lossy.write(FencingToken.of("counter", 5), key, "5");
        lossy.delete(FencingToken.of("counter", 6), key); // its tombstone's upload goes through untouched

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThatThrownBy(() -> direct(Policy.MONOTONIC).write(FencingToken.of("counter", 5), key, "back"))
                .isInstanceOf(dev.fencing.core.StaleTokenException.class);
        assertThat(direct(Policy.MONOTONIC).highWaterMark(key)).hasValue(6);
    }

    /**
     * The library on its own (retries left at their defaults): an upload with a generation
     * precondition is retried after its reply was lost, and the retry, whose first copy landed,
     * is answered 412 — a caller that trusted the 412 would call its own write stale. This is
     * what the store avoids by sending its uploads once and reading back its write id.
     */
    @Test
    void theLibraryRetriesAPreconditionedUploadAndItsSecondCopyFails412() {
        Storage retrying = Gcs.client(proxy.httpEndpoint());
        BlobId id = BlobId.of(bucket, key);
        long generation = Gcs.client().create(BlobInfo.newBuilder(id).build(), "v1".getBytes(StandardCharsets.UTF_8),
                Storage.BlobTargetOption.doesNotExist()).getGeneration();
        proxy.dropReplyTo(UPLOAD, () -> { });

        assertThatThrownBy(() -> retrying.create(BlobInfo.newBuilder(id).build(), "v2".getBytes(StandardCharsets.UTF_8),
                Storage.BlobTargetOption.generationMatch(generation)))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412));

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(new String(Gcs.client().readAllBytes(id), StandardCharsets.UTF_8))
                .as("the first copy landed: the 412 answered the library's own retry").isEqualTo("v2");
    }
}
