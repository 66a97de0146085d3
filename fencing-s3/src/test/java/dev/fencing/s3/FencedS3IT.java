package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The fenced S3 wrapper against the testkit's S3 server (S3Mock behind the testkit's serializing
 * proxy), with several writers, each with its own client and ETag cache, as separate processes
 * would have. S3Mock's ETags are the MD5 of the body, as real S3's are for one-part uploads
 * without SSE-KMS/SSE-C — the property the identical-bytes tests depend on.
 */
class FencedS3IT {

    private final S3Client plain = S3.client();
    private final String bucket = S3.newBucket(plain);

    @TempDir
    Path dir;

    private static String key() {
        return "invoice-" + UUID.randomUUID();
    }

    private PutObjectRequest put(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(key).build();
    }

    private String rawContent(String key) {
        return plain.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asUtf8String();
    }

    private static FencedS3 writer(S3Layout layout, ExecutionInterceptor... interceptors) {
        return FencedS3.builder(S3.client(interceptors)).layout(layout).build();
    }

    private static String content(FencedS3 reader, String bucket, String key) {
        return reader.getObject(bucket, key).map(FencedObject::contentAsUtf8).orElse(null);
    }

    private static void assertStale(Runnable write, long mark) {
        assertThatThrownBy(write::run).isInstanceOfSatisfying(StaleTokenException.class,
                e -> assertThat(e.highWaterMark()).isEqualTo(mark));
    }

    /** Article §13 with two clients: the paused holder's put is refused, the newer holder's object stays. */
    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void theZombieWritersPutIsRefused(S3Layout layout) {
        FencedS3 client1 = writer(layout);
        FencedS3 client2 = writer(layout);
        String key = key();
        client1.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("v1"));
        client2.putObject(FencingToken.of(key, 3), put(key), RequestBody.fromString("v3 by client 2"));
        assertStale(() -> client1.putObject(FencingToken.of(key, 2), put(key), RequestBody.fromString("zombie")), 3);
        assertThat(content(client1, bucket, key)).isEqualTo("v3 by client 2");
        assertThat(client1.highWaterMark(bucket, key)).hasValue(3);
    }

    /**
     * Identical bytes, warm cache: A wrote {@code body} with token 5 and remembers its ETag; B wrote
     * the same bytes with token 6. Under POINTER the ETag A remembers is its own pointer's, which B's
     * write replaced, so A's put is refused — for the empty body too, whose data objects all share
     * one ETag (the MD5 of nothing).
     */
    @ParameterizedTest
    @ValueSource(strings = {"same", ""})
    void aNewerHolderWritingIdenticalBytesStillFencesAWarmZombie(String body) {
        FencedS3 a = writer(S3Layout.POINTER);
        FencedS3 b = writer(S3Layout.POINTER);
        String key = key();
        a.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString(body));
        b.putObject(FencingToken.of(key, 6), put(key), RequestBody.fromString(body));

        assertStale(() -> a.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("ZOMBIE")), 6);
        assertStale(() -> a.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString(body)), 6);
        assertThat(a.getObject(bucket, key)).hasValueSatisfying(o -> {
            assertThat(o.contentAsUtf8()).isEqualTo(body);
            assertThat(o.token()).isEqualTo(6);
        });
    }

    /**
     * The hole {@link S3Layout#IN_PLACE} documents, shown so the documentation stays true: with
     * identical bodies the zombie's conditional put matches and the mark goes back from 6 to 5.
     */
    @Test
    void inPlaceLetsAZombieThroughWhenANewerHolderWroteIdenticalBytesAsDocumented() {
        FencedS3 a = writer(S3Layout.IN_PLACE);
        FencedS3 b = writer(S3Layout.IN_PLACE);
        String key = key();
        a.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("same"));
        b.putObject(FencingToken.of(key, 6), put(key), RequestBody.fromString("same"));

        a.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("ZOMBIE"));

        assertThat(rawContent(key)).isEqualTo("ZOMBIE");
        assertThat(a.highWaterMark(bucket, key)).hasValue(5);
    }

    /** Tombstones are unique, so repeated deletes never share an ETag. */
    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void aZombieCannotResurrectAKeyDeletedTwice(S3Layout layout) {
        FencedS3 a = writer(layout);
        FencedS3 b = writer(layout);
        String key = key();
        a.putObject(FencingToken.of(key, 4), put(key), RequestBody.fromString("v"));
        a.deleteObject(FencingToken.of(key, 5), bucket, key);
        b.deleteObject(FencingToken.of(key, 6), bucket, key);

        assertStale(() -> a.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("resurrected")), 6);
        assertStale(() -> a.deleteObject(FencingToken.of(key, 5), bucket, key), 6);
        assertThat(a.getObject(bucket, key)).isEmpty();
        assertThat(b.highWaterMark(bucket, key)).hasValue(6);
        assertThat(plain.headObject(r -> r.bucket(bucket).key(key)).metadata()).containsEntry("fencing-deleted", "true");
    }

    /**
     * Identical bytes, cold path (no cache): B writes A's bytes with a newer token between A's HEAD
     * and A's conditional put, under both policies.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void aNewerHolderWritingIdenticalBytesBetweenAColdZombiesHeadAndPutFencesIt(Policy policy) {
        String key = key();
        FencedS3 b = FencedS3.builder(S3.client()).policy(policy).build();
        b.putObject(FencingToken.of(key, 4), put(key), RequestBody.fromString("same"));
        AtomicBoolean interleaved = new AtomicBoolean();
        ExecutionInterceptor betweenHeadAndPut = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof PutObjectRequest && interleaved.compareAndSet(false, true)) {
                    b.putObject(FencingToken.of(key, 6), put(key), RequestBody.fromString("same"));
                }
            }
        };
        FencedS3 a = FencedS3.builder(S3.client(betweenHeadAndPut)).policy(policy).etagCacheSize(0).build();

        assertStale(() -> a.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("same")), 6);
        assertThat(interleaved).isTrue();
        assertThat(b.highWaterMark(bucket, key)).hasValue(6);
        assertThat(dataObjects(key)).as("the zombie's refused data object is gone").hasSize(1);
    }

    /**
     * Writer B (newer token) writes between writer A's HEAD and A's conditional put: A's pointer put
     * gets 412, A looks again and is refused as stale; B's object survives, A's data object is deleted.
     */
    @Test
    void aWriteBetweenTheHeadAndTheConditionalPutMakesThePutLookAgainAndRefuse() {
        String key = key();
        FencedS3 b = FencedS3.create(S3.client());
        b.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("initial"));
        AtomicBoolean interleaved = new AtomicBoolean();
        List<String> aRequests = new ArrayList<>();
        ExecutionInterceptor beforePointerPut = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                aRequests.add(context.request().getClass().getSimpleName());
                if (context.request() instanceof PutObjectRequest r && key.equals(r.key())
                        && interleaved.compareAndSet(false, true)) {
                    b.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("B's object"));
                }
            }
        };
        FencedS3 a = FencedS3.create(S3.client(beforePointerPut));
        assertStale(() -> a.putObject(FencingToken.of(key, 4), put(key), RequestBody.fromString("A's object")), 5);
        assertThat(interleaved).isTrue();
        assertThat(aRequests).as("HEAD, PUT data, PUT pointer (412), HEAD finding token 5, DELETE own data")
                .containsExactly("HeadObjectRequest", "PutObjectRequest", "PutObjectRequest", "HeadObjectRequest",
                        "DeleteObjectRequest");
        assertThat(content(b, bucket, key)).isEqualTo("B's object");
        assertThat(dataObjects(key)).hasSize(1);
    }

    /** The request counts docs/s3.md states for each layout, cold and warm. */
    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void requestsPerPutColdAndWarm(S3Layout layout) {
        AtomicInteger requests = new AtomicInteger();
        ExecutionInterceptor counting = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                requests.incrementAndGet();
            }
        };
        FencedS3 fenced = writer(layout, counting);
        boolean pointer = layout == S3Layout.POINTER;
        String key = key();
        fenced.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("a"));
        assertThat(requests).as("new key, cold: HEAD + PUT (+ PUT pointer)").hasValue(pointer ? 3 : 2);
        requests.set(0);
        fenced.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("b"));
        assertThat(requests).as("warm: PUT (+ PUT pointer + DELETE replaced data)").hasValue(pointer ? 3 : 1);
        requests.set(0);
        writer(layout).putObject(FencingToken.of(key, 2), put(key), RequestBody.fromString("other writer"));
        fenced.putObject(FencingToken.of(key, 3), put(key), RequestBody.fromString("c"));
        assertThat(requests).as("stale cache: PUT (412), HEAD, PUT (+ data PUT and DELETE)").hasValue(pointer ? 5 : 3);
        requests.set(0);
        assertThat(content(fenced, bucket, key)).isEqualTo("c");
        assertThat(requests).as("read: GET (+ GET data)").hasValue(pointer ? 2 : 1);
        requests.set(0);
        writer(layout, counting).putObject(FencingToken.of(key, 4), put(key), RequestBody.fromString("d"));
        assertThat(requests).as("replacing, cold: HEAD + PUT (+ PUT pointer + DELETE replaced data)")
                .hasValue(pointer ? 4 : 2);
        if (pointer) {
            assertThat(dataObjects(key)).as("replaced data objects are deleted").hasSize(1);
        }

        String fresh = key();
        fenced.deleteObject(FencingToken.of(fresh, 1), bucket, fresh);
        requests.set(0);
        fenced.putObject(FencingToken.of(fresh, 2), put(fresh), RequestBody.fromString("e"));
        assertThat(requests).as("new key, warm (this writer's own tombstone, no data to delete): PUT (+ PUT pointer)")
                .hasValue(pointer ? 2 : 1);
        assertThat(content(fenced, bucket, fresh)).isEqualTo("e");
    }

    /**
     * An unclear reply: the server stores the first put, its answer is lost (turned into a 500), the
     * SDK retries, and the retry's condition no longer matches — the object is now this very write.
     * The writer must recognise its own write instead of failing (or, under STRICT, calling itself stale).
     */
    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void aPutWhoseAnswerWasLostIsRecognisedAsLanded(S3Layout layout) {
        String key = key();
        AtomicBoolean lost = new AtomicBoolean();
        ExecutionInterceptor loseFirstPutAnswer = new ExecutionInterceptor() {
            @Override
            public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
                if (context.request() instanceof PutObjectRequest r && key.equals(r.key()) && r.ifNoneMatch() == null
                        && context.httpResponse().isSuccessful() && lost.compareAndSet(false, true)) {
                    return context.httpResponse().toBuilder().statusCode(500).build();
                }
                return context.httpResponse();
            }
        };
        FencedS3 setup = writer(layout);
        setup.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("before"));
        FencedS3 strict = FencedS3.builder(S3.client(loseFirstPutAnswer)).layout(layout).policy(Policy.STRICT).build();

        strict.putObject(FencingToken.of(key, 2), put(key), RequestBody.fromString("after"));

        assertThat(lost).as("the first answer was lost").isTrue();
        assertThat(content(setup, bucket, key)).isEqualTo("after");
        assertThat(setup.highWaterMark(bucket, key)).hasValue(2);
        if (layout == S3Layout.POINTER) {
            assertThat(dataObjects(key)).as("the landed write's data object is kept").hasSize(1);
        }
    }

    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void theCallersHeadersAndMetadataAreKeptAndTheTokenIsMetadata(S3Layout layout) {
        FencedS3 fenced = writer(layout);
        String key = key();
        fenced.putObject(FencingToken.of(key, 7), put(key).toBuilder().contentType("application/json")
                .metadata(Map.of("owner", "billing")).build(), RequestBody.fromString("{}"));
        HeadObjectResponse head = plain.headObject(r -> r.bucket(bucket).key(key));
        assertThat(head.metadata()).containsEntry("fencing-token", "7");
        assertThat(fenced.getObject(bucket, key)).hasValueSatisfying(object -> {
            assertThat(object.token()).isEqualTo(7);
            assertThat(object.metadata()).isEqualTo(Map.of("owner", "billing"));
            assertThat(object.contentType()).isEqualTo("application/json");
            assertThat(object.contentAsUtf8()).isEqualTo("{}");
        });
        if (layout == S3Layout.IN_PLACE) {
            assertThat(rawContent(key)).as("other readers see the content").isEqualTo("{}");
        } else {
            assertThat(rawContent(key)).as("other readers see the pointer").startsWith("fencing-pointer/1\ntoken: 7\n");
        }
    }

    /** Guarantee 9 on the wrapper: an object is fenced by one lock; a put or delete with another lock's token is refused. */
    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void aTokenOfAnotherLockIsRefusedByPutAndDeleteAndNothingChanges(S3Layout layout) {
        FencedS3 mine = writer(layout);
        FencedS3 other = writer(layout);
        String key = key();
        mine.putObject(FencingToken.of("invoices", 5), put(key), RequestBody.fromString("mine"));
        FencingToken foreign = FencingToken.of("invoices ", 1_000);

        for (Runnable write : List.<Runnable>of(
                () -> other.putObject(foreign, put(key), RequestBody.fromString("theirs")),
                () -> other.deleteObject(foreign, bucket, key),
                () -> mine.putObject(foreign, put(key), RequestBody.fromString("theirs, warm")))) {
            assertThatThrownBy(write::run).isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                assertThat(e.boundResource()).isEqualTo("invoices");
                assertThat(e.key()).contains(key);
            });
        }
        assertThat(content(other, bucket, key)).isEqualTo("mine");
        assertThat(other.highWaterMark(bucket, key)).hasValue(5);
        mine.deleteObject(FencingToken.of("invoices", 6), bucket, key);
        assertThatThrownBy(() -> other.putObject(foreign, put(key), RequestBody.fromString("resurrected")))
                .isInstanceOf(ForeignTokenException.class);
        assertThat(content(other, bucket, key)).isNull();
    }

    @Test
    void aFencedDeleteLeavesATombstoneAndDeletesThePointersData() {
        FencedS3 fenced = FencedS3.create(S3.client());
        String key = key();
        fenced.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("v"));
        assertThat(dataObjects(key)).hasSize(1);
        fenced.deleteObject(FencingToken.of(key, 6), bucket, key);
        assertThat(fenced.getObject(bucket, key)).isEmpty();
        assertThat(dataObjects(key)).isEmpty();
        assertThat(rawContent(key)).startsWith("fencing-tombstone/1\ntoken: 6\nwrite: ");
        fenced.putObject(FencingToken.of(key, 7), put(key), RequestBody.fromString("back"));
        assertThat(content(fenced, bucket, key)).isEqualTo("back");
    }

    @Test
    void badInputIsRefusedClearlyAndNothingIsWritten() {
        FencedS3 fenced = FencedS3.create(S3.client());
        String key = key();
        String missing = "no-such-bucket-" + UUID.randomUUID().toString().substring(0, 8);
        assertThatThrownBy(() -> fenced.putObject(FencingToken.of(key, 1), PutObjectRequest.builder().bucket(missing)
                .key(key).build(), RequestBody.fromString("x")))
                .isInstanceOf(NoSuchBucketException.class)
                .hasMessageContaining("bucket '" + missing + "' does not exist");
        assertThatThrownBy(() -> fenced.getObject(missing, key)).isInstanceOf(NoSuchBucketException.class)
                .hasMessageContaining(missing);
        assertThatThrownBy(() -> fenced.putObject(FencingToken.of(key, 1), put(key).toBuilder()
                .metadata(Map.of("Fencing-Token", "99")).build(), RequestBody.fromString("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not set the metadata key 'Fencing-Token'");
        assertThatThrownBy(() -> fenced.putObject(FencingToken.of(key, 1), put(key).toBuilder().ifNoneMatch("*").build(),
                RequestBody.fromString("x"))).hasMessageContaining("must not set If-Match or If-None-Match");
        assertThatThrownBy(() -> fenced.putObject(FencingToken.of(key, 1), put("k".repeat(1000)),
                RequestBody.fromString("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too long for the POINTER layout");
        assertThatThrownBy(() -> FencedS3.builder(plain).dataPrefix(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataPrefix");
        assertThat(fenced.getObject(bucket, key)).as("nothing written").isEmpty();
        assertThat(plain.listObjectsV2(r -> r.bucket(bucket)).contents()).isEmpty();
    }

    /**
     * A missing bucket is the SDK's {@link NoSuchBucketException} naming it, on every write
     * and read path (put and get are covered above), in both layouts, and nothing is written anywhere:
     * no bucket appears and the real bucket is as it was.
     */
    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void aMissingBucketIsNamedByDeleteMultipartAndTheStoreAndNothingIsWritten(S3Layout layout) throws IOException {
        FencedS3 fenced = writer(layout);
        String key = key();
        String missing = "no-such-bucket-" + UUID.randomUUID().toString().substring(0, 8);
        Path file = Files.writeString(dir.resolve("small.txt"), "one part");
        List<S3Object> before = plain.listObjectsV2(r -> r.bucket(bucket)).contents();
        FencedStore store = S3FencedStore.create(S3.client(), missing);

        for (ThrowingCallable call : List.<ThrowingCallable>of(
                () -> fenced.deleteObject(FencingToken.of(key, 1), missing, key),
                () -> fenced.putObjectMultipart(FencingToken.of(key, 1), PutObjectRequest.builder().bucket(missing).key(key)
                        .build(), file, 5L * 1024 * 1024),
                () -> store.write(FencingToken.of(key, 1), key, "v"),
                () -> store.update(FencingToken.of(key, 1), key, v -> "v"),
                () -> store.delete(FencingToken.of(key, 1), key),
                () -> store.read(key))) {
            assertThatThrownBy(call).isInstanceOf(NoSuchBucketException.class)
                    .hasMessageContaining("bucket '" + missing + "' does not exist");
        }
        assertThat(bucketNames()).as("the missing bucket was not created").doesNotContain(missing);
        assertThat(plain.listObjectsV2(r -> r.bucket(bucket)).contents()).as("the real bucket is unchanged")
                .isEqualTo(before).isEmpty();
    }

    private List<String> bucketNames() {
        return plain.listBuckets().buckets().stream().map(Bucket::name).sorted().toList();
    }

    private List<S3Object> dataObjects(String key) {
        return plain.listObjectsV2(r -> r.bucket(bucket).prefix(Settings.DEFAULT_DATA_PREFIX + key + "/")).contents();
    }
}
