package dev.fencing.s3;

import dev.fencing.core.FencingToken;
import dev.fencing.core.internal.Checks;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * Proves, on one scratch object, that an S3-compatible server keeps the promises the fence rests
 * on; run it once at start-up against each bucket you write fenced objects to. Some servers and
 * gateways ignore {@code If-Match} / {@code If-None-Match} (S3Proxy 2.6, older MinIO, proxies that
 * drop the headers), or alter user metadata; on them every fenced write "succeeds" and the fence
 * silently does nothing. The check finds that out before any data is at stake:
 *
 * <ol>
 *   <li>a put with {@code If-None-Match: *} creates a new key, and a second one on that key is
 *       refused;
 *   <li>the object comes back from {@code HeadObject} and {@code GetObject} with the toolkit's
 *       metadata intact (a token above 2<sup>53</sup>, a percent-encoded resource; names in any case),
 *       and from {@code HeadObject} with the put's ETag;
 *   <li>a put with {@code If-Match} on an ETag the object does not have is refused, and one on its
 *       own ETag is accepted;
 *   <li>a multipart completion with a wrong {@code If-Match}, and one with {@code If-None-Match: *}
 *       over the existing object, are refused (only {@link S3Layout#IN_PLACE} multipart uploads rely
 *       on them).
 * </ol>
 *
 * <pre>{@code
 * S3ServerCheck.run(s3, "reports").requirePassed();   // at start-up: refuses to go on if unsafe
 * }</pre>
 *
 * <p>What it cannot prove: that the conditions are atomic when writers race. Adobe S3Mock, for
 * one, passes this check (it honours each condition one request at a time) yet lets two racing
 * {@code If-None-Match: *} creates both win; only a race test against your server shows that.
 *
 * <p>It writes only under {@code .fencing-check/} (one object with a random name, about fifteen
 * requests) and deletes what it wrote; it needs {@code s3:PutObject}, {@code s3:GetObject} and
 * {@code s3:DeleteObject} there. A missing bucket is the SDK's {@code NoSuchBucketException} naming
 * it; any other error (access denied, an unreachable server) is thrown as the SDK throws it: it
 * says nothing about the server's conditions.
 */
public final class S3ServerCheck {

    /** Where the scratch objects go; nothing else is written. */
    public static final String SCRATCH_PREFIX = ".fencing-check/";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String WRONG_ETAG = "\"0123456789abcdef0123456789abcdef\"";
    /** A token above 2^53 (a double would round it) and a resource that needs percent-encoding. */
    private static final FencingToken PROBE = FencingToken.of("fencing-check/ü {}%:,", (1L << 53) + 1);

    private final String server;
    private final String bucket;
    private final List<String> problems;

    private S3ServerCheck(String server, String bucket, List<String> problems) {
        this.server = server;
        this.bucket = bucket;
        this.problems = List.copyOf(problems);
    }

    /** Runs the check against {@code bucket} through {@code s3}. */
    public static S3ServerCheck run(S3Client s3, String bucket) {
        Checks.requireNonNull("s3", s3);
        String server = s3.serviceClientConfiguration().endpointOverride().map(Object::toString)
                .orElse("S3 in " + s3.serviceClientConfiguration().region());
        return new Probe<>(new SyncS3Port(s3), FencedWrites.requireBucket(bucket)).run(server);
    }

    /** Runs the check against {@code bucket} through {@code s3}, waiting for each answer. */
    public static S3ServerCheck run(S3AsyncClient s3, String bucket) {
        Checks.requireNonNull("s3", s3);
        String server = s3.serviceClientConfiguration().endpointOverride().map(Object::toString)
                .orElse("S3 in " + s3.serviceClientConfiguration().region());
        return new Probe<>(new AsyncS3Port(s3), FencedWrites.requireBucket(bucket)).run(server);
    }

    /** Whether the server kept every promise checked. */
    public boolean passed() {
        return problems.isEmpty();
    }

    /** What the server got wrong, one sentence each; empty if it passed. */
    public List<String> problems() {
        return problems;
    }

    /** The server checked: its endpoint, or the AWS region when none was set. */
    public String server() {
        return server;
    }

    /** The bucket checked. */
    public String bucket() {
        return bucket;
    }

    /**
     * Returns this check if it passed.
     *
     * @throws IllegalStateException naming the server, the bucket and every problem, if it did not
     */
    public S3ServerCheck requirePassed() {
        if (!passed()) {
            throw new IllegalStateException(this + ": fenced writes to it would not be fenced");
        }
        return this;
    }

    @Override
    public String toString() {
        return "S3 server " + server + " (bucket '" + bucket + "') " + (passed() ? "passed the fencing check"
                : "failed the fencing check: " + String.join("; ", problems));
    }

    /** One run of the check over either client. */
    private static final class Probe<B> {
        private final S3Port<B> s3;
        private final String bucket;
        private final String key;
        private final String writeId;
        private final List<String> problems = new ArrayList<>();

        Probe(S3Port<B> s3, String bucket) {
            this.s3 = s3;
            this.bucket = bucket;
            byte[] id = new byte[16];
            RANDOM.nextBytes(id);
            this.writeId = HexFormat.of().formatHex(id);
            this.key = SCRATCH_PREFIX + writeId;
        }

        S3ServerCheck run(String server) {
            try {
                checkConditionalPuts();
                checkMultipartCompletion();
            } finally {
                try {
                    join(s3.delete(bucket, key));
                } catch (RuntimeException cleanupFailed) {
                    problems.add("the scratch object s3://" + bucket + "/" + key + " could not be deleted ("
                            + cleanupFailed.getMessage() + "); delete it by hand");
                }
            }
            return new S3ServerCheck(server, bucket, problems);
        }

        private void checkConditionalPuts() {
            Map<String, String> metadata = Metadata.fenced(Map.of(), PROBE, writeId, Metadata.LAYOUT, Metadata.POINTER);
            String created = put(request().ifNoneMatch("*").metadata(metadata), "create");
            if (created == null && !madeByThisCheck(head())) {
                problems.add("refused a put with If-None-Match: * on a new key");
                return;
            }
            HeadObjectResponse head = head();
            checkMetadata("HeadObject", head.metadata());
            checkMetadata("GetObject", join(s3.get(bucket, key)).response().metadata());
            if (created != null && !created.equals(head.eTag())) {
                problems.add("HeadObject answered ETag " + head.eTag() + " for the object a put answered " + created
                        + " for: conditions on the ETag a writer remembers would not match");
            }
            if (put(request().ifNoneMatch("*"), "second create") != null) {
                problems.add("ignores If-None-Match: * (a second create of an existing key succeeded):"
                        + " two writers could both create a new key");
            }
            String current = head().eTag();
            if (put(request().ifMatch(WRONG_ETAG), "wrong If-Match") != null) {
                problems.add("ignores If-Match (a put with an ETag the object does not have succeeded): a stale"
                        + " writer's put would replace a newer holder's object");
                current = head().eTag();
            }
            if (put(request().ifMatch(current), "own If-Match") == null) {
                problems.add("refused a put with If-Match on the object's own ETag " + current
                        + ": no fenced replace could ever succeed");
            }
        }

        private void checkMetadata(String request, Map<String, String> returned) {
            Map<String, String> sent = Metadata.fenced(Map.of(), PROBE, writeId, Metadata.LAYOUT, Metadata.POINTER);
            for (Map.Entry<String, String> expected : sent.entrySet()) {
                String got = Metadata.get(returned, expected.getKey());
                if (!expected.getValue().equals(got)) {
                    problems.add(request + " returned user metadata '" + expected.getKey() + "' as " + (got == null
                            ? "absent" : "'" + got + "'") + ", sent '" + expected.getValue() + "': the toolkit's marks"
                            + " would be lost or misread");
                }
            }
        }

        /** Both conditions of a completion, on the existing scratch object: each must be refused. */
        private void checkMultipartCompletion() {
            if (completes(WRONG_ETAG, null)) {
                problems.add("ignores If-Match on CompleteMultipartUpload (a completion with an ETag the object"
                        + " does not have succeeded): S3Layout.IN_PLACE multipart uploads would not be fenced");
            }
            if (completes(null, "*")) {
                problems.add("ignores If-None-Match: * on CompleteMultipartUpload (a completion over an existing"
                        + " key succeeded): an S3Layout.IN_PLACE multipart upload to a new key would replace a newer"
                        + " holder's object");
            }
        }

        /**
         * Whether a one-part upload over the scratch object completes with these conditions (a refused
         * one is aborted). The object is put again first: some servers' abort deletes the object at
         * the key (S3Mock 5.2 does), which would make the next probe's key new.
         */
        private boolean completes(@Nullable String ifMatch, @Nullable String ifNoneMatch) {
            put(request(), "multipart base");
            String uploadId = join(s3.createMultipartUpload(
                    CreateMultipartUploadRequest.builder().bucket(bucket).key(key).build()));
            boolean completed = false;
            try {
                String part = join(s3.uploadPart(UploadPartRequest.builder().bucket(bucket).key(key).uploadId(uploadId)
                        .partNumber(1).build(), s3.bytes("fencing-check multipart".getBytes(StandardCharsets.UTF_8))));
                try {
                    join(s3.completeMultipartUpload(CompleteMultipartUploadRequest.builder().bucket(bucket).key(key)
                            .uploadId(uploadId).ifMatch(ifMatch).ifNoneMatch(ifNoneMatch)
                            .multipartUpload(u -> u.parts(CompletedPart.builder().partNumber(1).eTag(part).build()))
                            .build()));
                    completed = true;
                } catch (S3Exception e) {
                    if (S3Errors.classify(e) != S3Errors.Kind.CHANGED) {
                        throw e;
                    }
                }
                return completed;
            } finally {
                if (!completed) {
                    try {
                        join(s3.abortMultipartUpload(bucket, key, uploadId));
                    } catch (RuntimeException abortFailed) {
                        problems.add("the scratch multipart upload " + uploadId + " of s3://" + bucket + "/" + key
                                + " could not be aborted (" + abortFailed.getMessage() + "); abort it by hand");
                    }
                }
            }
        }

        private PutObjectRequest.Builder request() {
            return PutObjectRequest.builder().bucket(bucket).key(key);
        }

        /** The put's ETag, or null if the server refused it as a failed condition. */
        private @Nullable String put(PutObjectRequest.Builder request, String what) {
            byte[] body = ("fencing-check/1 " + what + " " + writeId).getBytes(StandardCharsets.UTF_8);
            try {
                return join(s3.put(request.build(), s3.bytes(body))).eTag();
            } catch (S3Exception e) {
                if (S3Errors.classify(e) == S3Errors.Kind.CHANGED) {
                    return null;
                }
                throw e;
            }
        }

        private HeadObjectResponse head() {
            return join(s3.head(bucket, key));
        }

        private boolean madeByThisCheck(HeadObjectResponse head) {
            return writeId.equals(Metadata.get(head.metadata(), Metadata.WRITE));
        }

        /** The answer, or the failure as the SDK's own exception (a missing bucket named). */
        private <T> T join(CompletableFuture<T> future) {
            try {
                return future.join();
            } catch (CompletionException e) {
                throw S3Errors.rethrow(S3Errors.translate(e, bucket));
            }
        }
    }
}
