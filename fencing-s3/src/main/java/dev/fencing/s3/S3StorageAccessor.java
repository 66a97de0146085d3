package dev.fencing.s3;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The {@link StorageAccessor} of {@link S3FencedStore}: writes and deletes through {@link FencedS3}
 * (unreported: the store reports each refusal once), a read-modify-write as a PUT with
 * {@code If-Match} on the ETag it read (or {@code If-None-Match: *}). Thread-safe.
 */
final class S3StorageAccessor implements StorageAccessor<String> {

    private final S3Client s3;
    private final FencedS3 fenced;
    private final String bucket;
    private final String prefix;
    private final String server;

    /** @param server the server as messages name it ({@code "S3 at http://…"}) */
    S3StorageAccessor(S3Client s3, FencedS3 fenced, String bucket, String prefix, String server) {
        this.s3 = s3;
        this.fenced = fenced;
        this.bucket = bucket;
        this.prefix = prefix;
        this.server = server + ", bucket '" + bucket + "'";
    }

    @Override
    public boolean unanswered(RuntimeException failure) {
        return AwsReplies.unanswered(failure);
    }

    @Override
    public String server() {
        return server;
    }

    @Override
    public Optional<Snapshot<String>> load(String key) {
        try {
            ResponseBytes<GetObjectResponse> object = s3.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + key));
            ObjectState state = ObjectState.of(object.response().eTag(), object.response().metadata());
            return Optional.of(new Snapshot<>(state.tombstone() ? null : StoreEnvelope.decode(object.asByteArray()),
                    state.token().orElse(0), state.resource(), Objects.requireNonNull(state.etag(), "S3 answers every GET with an ETag")));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            throw (RuntimeException) S3Errors.translate(e, bucket);
        }
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        try {
            if (value == null) {
                fenced.deleteObjectUnreported(token, bucket, prefix + key);
            } else {
                fenced.putObjectUnreported(token, request(key), RequestBody.fromBytes(StoreEnvelope.encode(token.value(),
                        OwnerIds.random(), value)));
            }
            return WriteOutcome.written();
        } catch (StaleTokenException e) {
            return WriteOutcome.stale(e.highWaterMark());
        } catch (ForeignTokenException e) {
            return WriteOutcome.foreign(e.boundResource());
        }
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<String> expected, String value, FencingToken token,
            Policy policy) {
        if (expected != null && expected.fencedByAnotherLockThan(token)) {
            return WriteOutcome.foreign(Objects.requireNonNull(expected.resource()));
        }
        if (expected != null && !policy.accepts(token.value(), expected.token())) {
            return WriteOutcome.stale(expected.token());
        }
        String writeId = OwnerIds.random();
        Map<String, String> metadata = Metadata.fenced(Map.of(), token, writeId);
        PutObjectRequest conditional = request(key).toBuilder().metadata(metadata)
                .ifMatch(expected == null ? null : expected.version())
                .ifNoneMatch(expected == null ? "*" : null)
                .overrideConfiguration(AwsReplies.withoutBlindRetries(Optional.empty())).build();
        try {
            s3.putObject(conditional, RequestBody.fromBytes(StoreEnvelope.encode(token.value(), writeId, value)));
            return WriteOutcome.written();
        } catch (RuntimeException e) {
            if (AwsReplies.unclear(e)) { // the reply was lost: did this very write land?
                if (landed(key, writeId, e)) {
                    return WriteOutcome.written();
                }
                throw WriteOutcomeUnknownException.of(prefix + key, e);
            }
            if (!(e instanceof S3Exception s3e)) {
                throw e;
            }
            return switch (S3Errors.classify(s3e)) {
                // the item changed — unless the change is this very write, re-sent below the SDK after a lost
                // reply (the JDK's HttpURLConnection re-sends a non-streamed PUT on its own)
                case CHANGED -> landed(key, writeId, e) ? WriteOutcome.written() : WriteOutcome.conflict();
                case NO_SUCH_BUCKET -> throw (RuntimeException) S3Errors.translate(s3e, bucket);
                default -> throw s3e;
            };
        }
    }

    /**
     * Whether the object carries {@code writeId}; if it cannot be read, the outcome of the write that
     * ended with {@code unclear} (a lost reply, or a 412 that may answer a re-send of it) is unknown.
     */
    private boolean landed(String key, String writeId, RuntimeException unclear) {
        try {
            HeadObjectResponse head = s3.headObject(r -> r.bucket(bucket).key(prefix + key));
            return ObjectState.of(head.eTag(), head.metadata()).madeBy(writeId);
        } catch (RuntimeException e) {
            if (S3Errors.isNotFound(e)) {
                return false;
            }
            unclear.addSuppressed(e);
            throw WriteOutcomeUnknownException.of(prefix + key, unclear);
        }
    }

    private PutObjectRequest request(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(prefix + key).contentType("text/plain; charset=utf-8").build();
    }
}
