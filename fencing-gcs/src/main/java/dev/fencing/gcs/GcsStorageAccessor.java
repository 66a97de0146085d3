package dev.fencing.gcs;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link StorageAccessor} of {@link GcsFencedStore}: each write one upload with
 * {@code ifGenerationMatch} on the generation read ({@code 0} for no object). Thread-safe.
 */
final class GcsStorageAccessor implements StorageAccessor<Long> {

    /** How many conditional uploads a write tries while other writers keep changing the object. */
    static final int WRITE_ATTEMPTS = 5;

    /** How many times a read starts again when the generation it found was replaced before its bytes were read. */
    private static final int READ_ATTEMPTS = 5;

    private static final String CONTENT_TYPE = "text/plain; charset=utf-8";

    private final Storage reads;
    private final Storage once;
    private final String bucket;
    private final String prefix;
    private final String name;

    /**
     * @param reads the client for reads, retried within the request bound
     * @param once the client for uploads, each sent once
     */
    GcsStorageAccessor(Storage reads, Storage once, String bucket, String prefix) {
        this.reads = reads;
        this.once = once;
        this.bucket = bucket;
        this.prefix = prefix;
        this.name = "GCS at " + reads.getOptions().getHost();
    }

    @Override
    public boolean unanswered(RuntimeException failure) {
        return GcsErrors.unanswered(failure);
    }

    @Override
    public String server() {
        return name;
    }

    /**
     * Two reads: the object's metadata (generation, token, lock), then the bytes of exactly that
     * generation. If the generation was replaced in between (404), it starts again.
     */
    @Override
    public Optional<Snapshot<Long>> load(String key) {
        String object = ObjectNames.of(prefix, key);
        for (int attempt = 1; ; attempt++) {
            Blob blob = read("read", key, () -> reads.get(BlobId.of(bucket, object)));
            if (blob == null) {
                return Optional.empty();
            }
            long generation = Objects.requireNonNull(blob.getGeneration(), "GCS sends every object's generation");
            ObjectState state = ObjectState.of(generation, blob.getMetadata());
            String value = null;
            if (!state.tombstone()) {
                try {
                    value = new String(read("read", key, () -> reads.readAllBytes(BlobId.of(bucket, object, generation))),
                            StandardCharsets.UTF_8);
                } catch (StorageException e) {
                    if (e.getCode() == 404 && attempt < READ_ATTEMPTS) {
                        continue; // that generation was replaced a moment ago: read the new one
                    }
                    throw e;
                }
            }
            return Optional.of(new Snapshot<>(value, state.token().orElse(0), state.lock(), generation));
        }
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        String writeId = OwnerIds.random();
        ObjectState state = state(key);
        for (int attempt = 1; ; attempt++) {
            WriteOutcome refused = refusal(state, token, policy);
            if (refused != null) {
                return refused;
            }
            if (attempt > WRITE_ATTEMPTS) {
                throw ConcurrentUpdateException.gaveUp(prefix + key, WRITE_ATTEMPTS);
            }
            ObjectState now = upload(key, value, token, writeId, state.ifGenerationMatch());
            if (now == null) {
                return WriteOutcome.written();
            }
            state = now;
        }
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Long> expected, String value, FencingToken token,
            Policy policy) {
        if (expected != null && expected.fencedByAnotherLockThan(token)) {
            return WriteOutcome.foreign(Objects.requireNonNull(expected.resource()));
        }
        if (expected != null && !policy.accepts(token.value(), expected.token())) {
            return WriteOutcome.stale(expected.token());
        }
        ObjectState now = upload(key, value, token, OwnerIds.random(), expected == null ? 0 : expected.version());
        return now == null ? WriteOutcome.written() : WriteOutcome.conflict();
    }

    /** Why {@code token} may not write over {@code state}; null if it may. */
    private static @Nullable WriteOutcome refusal(ObjectState state, FencingToken token, Policy policy) {
        if (state.token().isEmpty()) {
            return null;
        }
        if (state.lock() != null && !state.lock().equals(token.resource())) {
            return WriteOutcome.foreign(state.lock());
        }
        long stored = state.token().getAsLong();
        return policy.accepts(token.value(), stored) ? null : WriteOutcome.stale(stored);
    }

    /**
     * Uploads {@code value} (a tombstone for null) once, on condition the object's generation is
     * still {@code ifGenerationMatch} (0: no object).
     *
     * @return null if it landed; otherwise the object's state now, after the precondition failed
     * @throws WriteOutcomeUnknownException if the reply was lost and the object does not carry {@code writeId}
     * @throws StoreUnavailableException if the upload never reached GCS (a refused connection)
     */
    private @Nullable ObjectState upload(String key, @Nullable String value, FencingToken token, String writeId,
            long ifGenerationMatch) {
        BlobInfo info = BlobInfo.newBuilder(BlobId.of(bucket, ObjectNames.of(prefix, key))).setContentType(CONTENT_TYPE)
                .setMetadata(ObjectMetadata.of(token, writeId, value == null)).build();
        byte[] bytes = value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
        try {
            once.create(info, bytes, Storage.BlobTargetOption.generationMatch(ifGenerationMatch));
            return null;
        } catch (RuntimeException e) {
            switch (GcsErrors.classifyUpload(e)) {
                case CHANGED -> {
                    // ours, if something below the client re-sent the upload after its first copy landed;
                    // so if the object cannot be read now, whether this write landed is unknown
                    ObjectState now;
                    try {
                        now = state(key);
                    } catch (RuntimeException unread) {
                        e.addSuppressed(unread);
                        throw WriteOutcomeUnknownException.of(prefix + key, e);
                    }
                    return now.madeBy(writeId) ? null : now;
                }
                case UNCLEAR -> {
                    if (landed(key, writeId, e)) {
                        return null;
                    }
                    throw WriteOutcomeUnknownException.of(prefix + key, e);
                }
                case NOT_SENT -> throw StoreUnavailableException.of(name, "upload", prefix + key, e);
                case NO_BUCKET -> throw GcsErrors.noBucket(bucket, (StorageException) e);
                default -> throw e;
            }
        }
    }

    private boolean landed(String key, String writeId, RuntimeException unclear) {
        try {
            return state(key).madeBy(writeId);
        } catch (RuntimeException e) {
            unclear.addSuppressed(e);
            return false;
        }
    }

    /** The object's generation and metadata, or {@link ObjectState#ABSENT}. */
    private ObjectState state(String key) {
        Blob blob = read("read of the metadata", key, () -> reads.get(BlobId.of(bucket, ObjectNames.of(prefix, key))));
        if (blob == null) {
            return ObjectState.ABSENT;
        }
        return ObjectState.of(Objects.requireNonNull(blob.getGeneration(), "GCS sends every object's generation"),
                blob.getMetadata());
    }

    /** A read; one that got no answer at all (a timeout, a refused connection) is {@link StoreUnavailableException}. */
    private <T> T read(String operation, String key, ReadCall<T> call) {
        try {
            return call.run();
        } catch (RuntimeException e) {
            if (GcsErrors.unanswered(e)) {
                throw StoreUnavailableException.of(name, operation, prefix + key, e);
            }
            throw e;
        }
    }

    @FunctionalInterface
    private interface ReadCall<T> {
        T run();
    }
}
