// Over 500 lines: one conditional-write algorithm for both SDK clients; its restructuring is separate work.
package dev.fencing.s3;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.SafeListener;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.Refusals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * The fenced writes, written once for both SDK clients.
 *
 * <p>Every write ends in one conditional request on the object at the key — an in-place object, a
 * tombstone or a pointer — carrying {@code If-Match} on the ETag of the state whose token was
 * checked ({@code If-None-Match: *} for an absent key):
 * <ol>
 *   <li>Know the state: this writer's cache, else one {@code HeadObject}. Refuse at once if its
 *       token is one the policy refuses.
 *   <li>Send the conditional request. On 412/409/404 the object changed: look again. If it now
 *       carries this write's own write id, the write landed and the answer was for a retry of it
 *       (an unclear reply); otherwise re-check the token and try again, up to {@code maxAttempts}.
 *   <li>The conditional request is sent without the SDK's blind retries ({@link AwsReplies}). When
 *       its reply is lost (timeout, dropped connection, 5xx), look again: the object carries this
 *       write's id → written; otherwise {@link WriteOutcomeUnknownException} — never a second
 *       attempt, which could apply the change again after a same-token writer replaced ours.
 * </ol>
 * The check is sound only when the object checked has bytes unique to its write (see
 * {@link S3Layout}); pointers and tombstones always do.
 *
 * @param <B> the client's request body type
 */
final class FencedWrites<B> {

    private static final int POINTER_READ_ATTEMPTS = 5;

    private final S3Port<B> s3;
    private final Settings settings;
    private final EtagCache cache;
    private final FencingListener listener;

    FencedWrites(S3Port<B> s3, Settings settings, FencingListener listener) {
        this.s3 = s3;
        this.settings = settings;
        this.cache = new EtagCache(settings.etagCacheSize());
        this.listener = SafeListener.of(listener);
    }

    /**
     * Tells the listener how a write ended: accepted, refused (also logged at WARN, through
     * {@link Refusals}), or failed otherwise (a foreign token, a key that kept changing, an unknown
     * outcome). Every write of the wrappers ends here exactly once.
     */
    private <T> CompletableFuture<T> reported(FencingToken token, String bucket, String key, CompletableFuture<T> write) {
        String id = id(bucket, key);
        return write.whenComplete((result, failure) -> {
            if (failure == null) {
                listener.onWriteAccepted(token, id);
                return;
            }
            Throwable cause = S3Errors.unwrap(failure);
            if (cause instanceof StaleTokenException refused) {
                Refusals.reported(listener, refused);
            } else if (cause instanceof FencingException other) {
                listener.onWriteFailed(id, other);
            }
        });
    }

    Settings settings() {
        return settings;
    }

    /** Refuses, before any I/O, a request the fenced put cannot take. */
    void checkPut(PutObjectRequest request, FencingToken token) {
        checkRequest(request);
        if (settings.layout() == S3Layout.POINTER) {
            dataKey(request.key(), token, OwnerIds.random()); // checks the length
        }
    }

    // ---- put, delete ----

    CompletableFuture<PutObjectResponse> put(FencingToken token, PutObjectRequest request, B body) {
        return reported(token, request.bucket(), request.key(), unreportedPut(token, request, body));
    }

    /** {@link #put} telling nobody how it ended: the store's path, which reports each ending once. */
    CompletableFuture<PutObjectResponse> unreportedPut(FencingToken token, PutObjectRequest request, B body) {
        String writeId = OwnerIds.random();
        if (settings.layout() == S3Layout.POINTER) {
            return putViaPointer(token, request, body, writeId);
        }
        Write write = new Write(token, request.bucket(), request.key(), writeId, false, false);
        PutObjectRequest inPlace = request.toBuilder().metadata(Metadata.fenced(request.metadata(), token, writeId)).build();
        return conditional(write, cache.get(write.id()), false, 1, putting(inPlace, () -> body))
                .thenCompose(swap -> deleteReplacedData(write, swap.replaced()).thenApply(v -> swap.response()));
    }

    /** A tombstone with unique bytes at the key, in either layout; the replaced content is deleted. */
    CompletableFuture<Void> delete(FencingToken token, String bucket, String key) {
        return reported(token, bucket, key, unreportedDelete(token, bucket, key));
    }

    /** {@link #delete} telling nobody how it ended: the store's path. */
    CompletableFuture<Void> unreportedDelete(FencingToken token, String bucket, String key) {
        String writeId = OwnerIds.random();
        Write write = new Write(token, bucket, key, writeId, true, false);
        PutObjectRequest tombstone = PutObjectRequest.builder().bucket(bucket).key(key).contentType(Pointer.CONTENT_TYPE)
                .metadata(Metadata.fenced(Map.of(), token, writeId, Metadata.DELETED, "true")).build();
        byte[] bytes = Pointer.tombstone(token, writeId);
        return conditional(write, cache.get(write.id()), false, 1, putting(tombstone, () -> s3.bytes(bytes)))
                .thenCompose(swap -> deleteReplacedData(write, swap.replaced()));
    }

    private CompletableFuture<PutObjectResponse> putViaPointer(FencingToken token, PutObjectRequest request, B body,
            String writeId) {
        Write write = new Write(token, request.bucket(), request.key(), writeId, false, true);
        String dataKey = dataKey(request.key(), token, writeId);
        // a zombie that can know it is one uploads nothing
        return acceptedState(write, cache.get(write.id()), false).thenCompose(state -> {
            PutObjectRequest data = request.toBuilder().key(dataKey)
                    .metadata(Metadata.fenced(request.metadata(), token, writeId)).build();
            return translated(s3.put(data, body), write.bucket())
                    .thenCompose(response -> swapPointer(write, dataKey, state, true).thenApply(v -> response));
        });
    }

    private CompletableFuture<Void> swapPointer(Write write, String dataKey, ObjectState known, boolean fresh) {
        PutObjectRequest pointer = PutObjectRequest.builder().bucket(write.bucket()).key(write.key())
                .contentType(Pointer.CONTENT_TYPE).metadata(Pointer.pointerMetadata(write.token(), write.writeId())).build();
        byte[] bytes = Pointer.pointer(write.token(), write.writeId(), dataKey);
        return conditional(write, known, fresh, 1, putting(pointer, () -> s3.bytes(bytes))).handle((swap, failure) -> {
            if (failure == null) {
                return deleteReplacedData(write, swap.replaced());
            }
            Throwable cause = S3Errors.unwrap(failure);
            if (cause instanceof StaleTokenException || cause instanceof ConcurrentUpdateException) {
                // refused for certain: no pointer names our data object
                return deleteQuietly(write.bucket(), dataKey).thenCompose(v -> CompletableFuture.<Void>failedFuture(cause));
            }
            // an unclear failure may have left our pointer in place: keep the data it would name
            return CompletableFuture.<Void>failedFuture(cause);
        }).thenCompose(Function.identity());
    }

    // ---- the conditional request, its retries and the unclear reply ----

    /** One logical write: its token, target and the random id its objects carry. */
    private record Write(FencingToken token, String bucket, String key, String writeId, boolean tombstone,
            boolean pointer) {
        String id() {
            return FencedWrites.id(bucket, key);
        }

        ObjectState landed(String etag) {
            return new ObjectState(true, etag, OptionalLong.of(token.value()), token.resource(), tombstone, pointer,
                    writeId);
        }
    }

    /** The answer of a conditional request that landed, and the state it replaced. */
    private record Swap<R>(R response, ObjectState replaced) {}

    /** Sends the conditional request of a write. */
    private interface Sender<R> {
        CompletableFuture<R> send(@Nullable String ifMatch, @Nullable String ifNoneMatch);

        String etag(R response);

        /** The answer to give when the write is found to have landed after an unclear reply. */
        R recovered(ObjectState landed);
    }

    private Sender<PutObjectResponse> putting(PutObjectRequest request, Supplier<B> body) {
        return new Sender<>() {
            @Override
            public CompletableFuture<PutObjectResponse> send(@Nullable String ifMatch, @Nullable String ifNoneMatch) {
                return s3.put(request.toBuilder().ifMatch(ifMatch).ifNoneMatch(ifNoneMatch)
                        .overrideConfiguration(AwsReplies.withoutBlindRetries(request.overrideConfiguration())).build(), body.get());
            }

            @Override
            public String etag(PutObjectResponse response) {
                return response.eTag();
            }

            @Override
            public PutObjectResponse recovered(ObjectState landed) {
                return PutObjectResponse.builder().eTag(landed.etag()).build();
            }
        };
    }

    private <R> CompletableFuture<Swap<R>> conditional(Write write, @Nullable ObjectState known, boolean fresh,
            int attempt,
            Sender<R> sender) {
        return acceptedState(write, known, fresh).thenCompose(state -> {
            return sender.send(state.exists() ? state.etag() : null, state.exists() ? null : "*")
                    .handle((response, failure) -> {
                        if (failure == null) {
                            cache.put(write.id(), write.landed(sender.etag(response)));
                            return CompletableFuture.completedFuture(new Swap<>(response, state));
                        }
                        cache.remove(write.id());
                        if (AwsReplies.unclear(failure)) {
                            return landedOrUnknown(write, state, failure, sender);
                        }
                        if (S3Errors.classify(failure) != S3Errors.Kind.CHANGED && !isNoSuchUpload(failure)) {
                            return CompletableFuture.<Swap<R>>failedFuture(S3Errors.translate(failure, write.bucket()));
                        }
                        // the 412 may answer a re-send of this very write: unless a read shows whose it is, unknown
                        return headOrUnknown(write, failure).thenCompose(now -> {
                            if (now.madeBy(write.writeId())) { // our write landed; the 412 answered a retry of it
                                cache.put(write.id(), now);
                                return CompletableFuture.completedFuture(new Swap<>(sender.recovered(now), state));
                            }
                            if (attempt >= settings.maxAttempts()) {
                                requireAccepted(write, now);
                                throw ConcurrentUpdateException.gaveUp(write.id(), attempt);
                            }
                            return conditional(write, now, true, attempt + 1, sender);
                        });
                    })
                    .thenCompose(Function.identity());
        });
    }

    /** The object's state now; if it cannot be read, the write refused by {@code refusal} is of unknown outcome. */
    private CompletableFuture<ObjectState> headOrUnknown(Write write, Throwable refusal) {
        return head(write.bucket(), write.key()).handle((now, headFailure) -> {
            if (headFailure == null) {
                return now;
            }
            Throwable cause = S3Errors.unwrap(headFailure);
            cause.addSuppressed(S3Errors.unwrap(refusal));
            throw new CompletionException(WriteOutcomeUnknownException.of(write.id(), cause));
        });
    }

    /** After a lost reply: written if the object carries this write's id, else the outcome is unknown. */
    private <R> CompletableFuture<Swap<R>> landedOrUnknown(Write write, ObjectState state, Throwable failure,
            Sender<R> sender) {
        Throwable cause = S3Errors.unwrap(failure);
        return head(write.bucket(), write.key()).handle((now, headFailure) -> {
            if (headFailure == null && now.madeBy(write.writeId())) {
                cache.put(write.id(), now);
                return new Swap<>(sender.recovered(now), state);
            }
            if (headFailure != null) {
                cause.addSuppressed(S3Errors.unwrap(headFailure));
            }
            throw new CompletionException(WriteOutcomeUnknownException.of(write.id(), cause));
        });
    }

    private void requireAccepted(Write write, ObjectState state) {
        if (foreign(write, state)) {
            cache.remove(write.id());
            throw ForeignTokenException.of(write.id(), write.token(), Objects.requireNonNull(state.resource()));
        }
        if (!accepts(write, state)) {
            cache.remove(write.id());
            throw StaleTokenException.of(write.id(), write.token(), state.token().getAsLong(), settings.policy());
        }
    }

    /**
     * The state to condition the write on, its token accepted: {@code known} (from the cache or a
     * HEAD just made) or a fresh HEAD. A refusal always names the key's current mark: a cached state
     * that refuses is looked up again first.
     */
    private CompletableFuture<ObjectState> acceptedState(Write write, @Nullable ObjectState known, boolean fresh) {
        if (known != null && (fresh || accepts(write, known))) {
            requireAccepted(write, known);
            return CompletableFuture.completedFuture(known);
        }
        return head(write.bucket(), write.key()).thenApply(state -> {
            requireAccepted(write, state);
            return state;
        });
    }

    private boolean accepts(Write write, ObjectState state) {
        return state.token().isEmpty() || (!foreign(write, state)
                && settings.policy().accepts(write.token().value(), state.token().getAsLong()));
    }

    /** Whether the object is fenced by another resource's tokens (compared exactly, as Java strings). */
    private static boolean foreign(Write write, ObjectState state) {
        return state.token().isPresent() && state.resource() != null && !state.resource().equals(write.token().resource());
    }

    private CompletableFuture<ObjectState> head(String bucket, String key) {
        return s3.head(bucket, key).handle((head, failure) -> {
            if (failure == null) {
                return ObjectState.of(head.eTag(), head.metadata());
            }
            if (S3Errors.unwrap(failure) instanceof S3Exception e && e.statusCode() == 404) {
                return ObjectState.ABSENT; // or no bucket: a HEAD cannot tell, the write that follows will
            }
            throw new CompletionException(S3Errors.unwrap(failure));
        });
    }

    /** Deletes the data object of a pointer this write replaced; best effort, never fails the write. */
    private CompletableFuture<Void> deleteReplacedData(Write write, ObjectState replaced) {
        if (!replaced.pointer() || replaced.tombstone() || replaced.writeId() == null || replaced.token().isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return deleteQuietly(write.bucket(), dataKey(write.key(), replaced.token().getAsLong(), replaced.writeId()));
    }

    private CompletableFuture<Void> deleteQuietly(String bucket, String key) {
        return s3.delete(bucket, key).exceptionally(failure -> null);
    }

    // ---- reads ----

    CompletableFuture<Optional<FencedObject>> get(String bucket, String key) {
        return get(bucket, key, 1);
    }

    private CompletableFuture<Optional<FencedObject>> get(String bucket, String key, int attempt) {
        return s3.get(bucket, key).handle((object, failure) -> {
            if (failure != null) {
                return S3Errors.isNotFound(failure) ? CompletableFuture.completedFuture(Optional.<FencedObject>empty())
                        : CompletableFuture.<Optional<FencedObject>>failedFuture(S3Errors.translate(failure, bucket));
            }
            GetObjectResponse response = object.response();
            ObjectState state = ObjectState.of(response.eTag(), response.metadata());
            if (state.tombstone()) {
                return CompletableFuture.completedFuture(Optional.<FencedObject>empty());
            }
            if (!state.pointer()) {
                return CompletableFuture.completedFuture(Optional.of(fencedObject(bucket, key, state, object.asByteArray(),
                        response)));
            }
            String dataKey = Pointer.dataKey(bucket, key, object.asByteArray());
            return s3.get(bucket, dataKey).handle((data, dataFailure) -> {
                if (dataFailure == null) {
                    return CompletableFuture.completedFuture(Optional.of(fencedObject(bucket, key, state,
                            data.asByteArray(), data.response())));
                }
                if (!S3Errors.isNotFound(dataFailure)) {
                    return CompletableFuture.<Optional<FencedObject>>failedFuture(S3Errors.translate(dataFailure, bucket));
                }
                if (attempt < POINTER_READ_ATTEMPTS) { // replaced (and its data deleted) while we read: read again
                    return get(bucket, key, attempt + 1);
                }
                return CompletableFuture.<Optional<FencedObject>>failedFuture(new IllegalStateException("the pointer s3://"
                        + bucket + "/" + key + " names the data object s3://" + bucket + "/" + dataKey
                        + ", which does not exist: was it deleted outside the toolkit (a lifecycle rule on the data prefix)?"));
            }).thenCompose(Function.identity());
        }).thenCompose(Function.identity());
    }

    private static FencedObject fencedObject(String bucket, String key, ObjectState state, byte[] content,
            GetObjectResponse response) {
        return new FencedObject(bucket, key, content, state.token().orElse(0), response.eTag(),
                Metadata.user(response.metadata()), response.contentType());
    }

    CompletableFuture<OptionalLong> highWaterMark(String bucket, String key) {
        return head(bucket, key).thenApply(ObjectState::token);
    }

    // ---- multipart ----

    CompletableFuture<CompleteMultipartUploadResponse> putFile(FencingToken token, PutObjectRequest request, Path file,
            long partSize) {
        return reported(token, request.bucket(), request.key(), unreportedPutFile(token, request, file, partSize));
    }

    private CompletableFuture<CompleteMultipartUploadResponse> unreportedPutFile(FencingToken token,
            PutObjectRequest request, Path file, long partSize) {
        List<PartPlan.Part> plan = PartPlan.of(size(file), partSize);
        String writeId = OwnerIds.random();
        boolean viaPointer = settings.layout() == S3Layout.POINTER;
        Write write = new Write(token, request.bucket(), request.key(), writeId, false, viaPointer);
        String target = viaPointer ? dataKey(request.key(), token, writeId) : request.key();
        return acceptedState(write, cache.get(write.id()), false).thenCompose(state -> {
            CreateMultipartUploadRequest create = CreateMultipartUploadRequest.builder().bucket(write.bucket()).key(target)
                    .contentType(request.contentType()).cacheControl(request.cacheControl())
                    .contentDisposition(request.contentDisposition()).contentEncoding(request.contentEncoding())
                    .contentLanguage(request.contentLanguage()).storageClass(request.storageClass())
                    .serverSideEncryption(request.serverSideEncryption()).ssekmsKeyId(request.ssekmsKeyId())
                    .tagging(request.tagging()).metadata(Metadata.fenced(request.metadata(), token, writeId)).build();
            return translated(s3.createMultipartUpload(create), write.bucket()).thenCompose(uploadId -> {
                CompletableFuture<List<CompletedPart>> parts = uploadParts(write.bucket(), target, uploadId, file, plan);
                if (viaPointer) {
                    return parts.thenCompose(done -> translated(s3.completeMultipartUpload(complete(write.bucket(), target,
                                    uploadId, done).build()), write.bucket()))
                            .exceptionallyCompose(failure -> abortQuietly(write.bucket(), target, uploadId, failure))
                            .thenCompose(response -> swapPointer(write, target, state, true).thenApply(v -> response));
                }
                return parts.thenCompose(done -> conditional(write, state, true, 1, completing(write, uploadId, done)))
                        .exceptionallyCompose(failure -> abortQuietly(write.bucket(), target, uploadId, failure))
                        .thenCompose(swap -> deleteReplacedData(write, swap.replaced()).thenApply(v -> swap.response()));
            });
        });
    }

    private Sender<CompleteMultipartUploadResponse> completing(Write write, String uploadId, List<CompletedPart> parts) {
        return new Sender<>() {
            @Override
            public CompletableFuture<CompleteMultipartUploadResponse> send(@Nullable String ifMatch,
                    @Nullable String ifNoneMatch) {
                return s3.completeMultipartUpload(complete(write.bucket(), write.key(), uploadId, parts)
                        .ifMatch(ifMatch).ifNoneMatch(ifNoneMatch)
                        .overrideConfiguration(AwsReplies.withoutBlindRetries(Optional.empty())).build());
            }

            @Override
            public String etag(CompleteMultipartUploadResponse response) {
                return response.eTag();
            }

            @Override
            public CompleteMultipartUploadResponse recovered(ObjectState landed) {
                return CompleteMultipartUploadResponse.builder().bucket(write.bucket()).key(write.key())
                        .eTag(landed.etag()).build();
            }
        };
    }

    private static CompleteMultipartUploadRequest.Builder complete(String bucket, String key, String uploadId,
            List<CompletedPart> parts) {
        return CompleteMultipartUploadRequest.builder().bucket(bucket).key(key).uploadId(uploadId)
                .multipartUpload(CompletedMultipartUpload.builder().parts(parts).build());
    }

    private CompletableFuture<List<CompletedPart>> uploadParts(String bucket, String key, String uploadId, Path file,
            List<PartPlan.Part> plan) {
        CompletableFuture<List<CompletedPart>> done = CompletableFuture.completedFuture(new ArrayList<>());
        for (PartPlan.Part part : plan) {
            done = done.thenCompose(parts -> s3.uploadPart(UploadPartRequest.builder().bucket(bucket).key(key)
                            .uploadId(uploadId).partNumber(part.number()).contentLength(part.length()).build(),
                    s3.filePart(file, part.offset(), part.length())).thenApply(etag -> {
                        parts.add(CompletedPart.builder().partNumber(part.number()).eTag(etag).build());
                        return parts;
                    }));
        }
        return done;
    }

    private <T> CompletableFuture<T> abortQuietly(String bucket, String key, String uploadId, Throwable failure) {
        Throwable cause = S3Errors.unwrap(failure);
        return s3.abortMultipartUpload(bucket, key, uploadId).handle((v, abortFailed) -> {
            if (abortFailed != null && !isNoSuchUpload(abortFailed)) {
                cause.addSuppressed(S3Errors.unwrap(abortFailed));
            }
            return null;
        }).thenCompose(v -> CompletableFuture.failedFuture(cause));
    }

    private static boolean isNoSuchUpload(Throwable failure) {
        return S3Errors.unwrap(failure) instanceof S3Exception e && e.awsErrorDetails() != null
                && "NoSuchUpload".equals(e.awsErrorDetails().errorCode());
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    // ---- names and checks ----

    private static <T> CompletableFuture<T> translated(CompletableFuture<T> request, String bucket) {
        return request.exceptionallyCompose(failure -> CompletableFuture.failedFuture(S3Errors.translate(failure, bucket)));
    }

    private String dataKey(String key, FencingToken token, String writeId) {
        return dataKey(key, token.value(), writeId);
    }

    private String dataKey(String key, long token, String writeId) {
        String dataKey = settings.dataPrefix() + key + "/" + String.format("%019d", token) + "-" + writeId;
        int bytes = dataKey.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > 1024) {
            throw new IllegalArgumentException("the object key '" + key + "' is too long for the POINTER layout: its data"
                    + " object's key would be " + bytes + " bytes (data prefix '" + settings.dataPrefix() + "' + key + 53),"
                    + " S3 allows 1024; shorten the key or the data prefix");
        }
        return dataKey;
    }

    static void checkRequest(PutObjectRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("request must not be null");
        }
        requireBucket(request.bucket());
        requireKey(request.key());
        if (request.ifMatch() != null || request.ifNoneMatch() != null) {
            throw new IllegalArgumentException("the request must not set If-Match or If-None-Match: the fenced put sets"
                    + " them itself from the object's current ETag");
        }
        Metadata.requireNoReservedKeys(request.metadata());
    }

    static String requireBucket(String bucket) {
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("the request needs a bucket, got '" + bucket + "'");
        }
        return bucket;
    }

    static String requireKey(String key) {
        if (key == null || key.isEmpty() || key.getBytes(StandardCharsets.UTF_8).length > 1024) {
            throw new IllegalArgumentException("the object key must be 1 to 1024 bytes of UTF-8, got '" + key + "'");
        }
        return key;
    }

    static String id(String bucket, String key) {
        return bucket + "/" + key;
    }
}
