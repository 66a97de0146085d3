package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.S3TestServer;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * The start-up check against a server that keeps the fence's promises (the testkit's atomic
 * endpoint) and against ones that do not: a gateway that drops {@code If-Match} /
 * {@code If-None-Match} (the testkit's condition-ignoring endpoint, in front of the same S3Mock),
 * and one that loses the toolkit's metadata. On the condition-ignoring server the check is shown to
 * be right: a zombie's fenced put really lands there.
 */
class S3ServerCheckIT {

    /** Drops the toolkit's token from every response, as a server that mangles user metadata would. */
    private static final ExecutionInterceptor LOSES_THE_TOKEN = new ExecutionInterceptor() {
        @Override
        public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
            SdkHttpResponse response = context.httpResponse();
            SdkHttpResponse.Builder kept = response.toBuilder().clearHeaders();
            response.headers().forEach((name, values) -> {
                if (!name.equalsIgnoreCase("x-amz-meta-fencing-token")) {
                    kept.putHeader(name, values);
                }
            });
            return kept.build();
        }
    };

    private final S3Client atomic = S3.client();
    private final String bucket = S3.newBucket(atomic);
    private final S3Client ignoring = client(TestServers.s3().conditionIgnoringEndpoint());

    @AfterEach
    void close() {
        atomic.close();
        ignoring.close();
    }

    private static S3Client client(String endpoint, ExecutionInterceptor... interceptors) {
        return S3Client.builder().endpointOverride(URI.create(endpoint)).forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.executionInterceptors(List.of(interceptors))).build();
    }

    private List<String> scratchObjects() {
        return atomic.listObjectsV2(r -> r.bucket(bucket).prefix(S3ServerCheck.SCRATCH_PREFIX)).contents().stream()
                .map(o -> o.key()).toList();
    }

    @Test
    void aServerThatKeepsThePromisesPassesAndNothingIsLeftBehind() {
        S3ServerCheck check = S3ServerCheck.run(atomic, bucket);
        assertThat(check.problems()).isEmpty();
        assertThat(check.passed()).isTrue();
        assertThat(check.requirePassed()).isSameAs(check);
        assertThat(check.toString()).contains(bucket).contains("passed");
        assertThat(scratchObjects()).isEmpty();
    }

    @Test
    void theAsyncClientAndCapitalizedHeaderNamesPassToo() {
        try (S3AsyncClient async = S3.asyncClient(CapitalizedMetadataIT.GO_CANONICAL_HEADERS)) {
            assertThat(S3ServerCheck.run(async, bucket).problems()).isEmpty();
        }
        try (S3Client capitalized = S3.client(CapitalizedMetadataIT.GO_CANONICAL_HEADERS)) {
            assertThat(S3ServerCheck.run(capitalized, bucket).problems()).isEmpty();
        }
        assertThat(scratchObjects()).isEmpty();
    }

    @Test
    void aServerThatIgnoresConditionsIsRefusedNamingWhatItGotWrong() {
        S3ServerCheck check = S3ServerCheck.run(ignoring, bucket);
        assertThat(check.passed()).isFalse();
        assertThat(check.problems()).anySatisfy(p -> assertThat(p).contains("ignores If-None-Match: *"))
                .anySatisfy(p -> assertThat(p).contains("ignores If-Match ("))
                .anySatisfy(p -> assertThat(p).contains("CompleteMultipartUpload"));
        assertThatThrownBy(check::requirePassed).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(TestServers.s3().conditionIgnoringEndpoint()).hasMessageContaining(bucket)
                .hasMessageContaining("ignores If-Match");
        assertThat(scratchObjects()).isEmpty();
    }

    /** What the check protects from: on that server a zombie whose cache is warm overwrites the newer object. */
    @Test
    void onAServerThatIgnoresConditionsAWarmZombieReallyGetsThrough() {
        String key = "zombie-" + UUID.randomUUID();
        PutObjectRequest put = PutObjectRequest.builder().bucket(bucket).key(key).build();
        FencedS3 zombie = FencedS3.builder(ignoring).layout(S3Layout.IN_PLACE).build();
        FencedS3 holder = FencedS3.builder(client(TestServers.s3().conditionIgnoringEndpoint()))
                .layout(S3Layout.IN_PLACE).build();
        zombie.putObject(FencingToken.of(key, 5), put, RequestBody.fromString("v5"));
        holder.putObject(FencingToken.of(key, 6), put, RequestBody.fromString("v6"));
        zombie.putObject(FencingToken.of(key, 5), put, RequestBody.fromString("zombie"));
        assertThat(holder.highWaterMark(bucket, key)).as("the mark went backwards").hasValue(5);

        // the same sequence through the atomic endpoint is refused
        String other = key + "-atomic";
        PutObjectRequest atomicPut = put.toBuilder().key(other).build();
        FencedS3 atomicZombie = FencedS3.builder(atomic).layout(S3Layout.IN_PLACE).build();
        atomicZombie.putObject(FencingToken.of(other, 5), atomicPut, RequestBody.fromString("v5"));
        FencedS3.builder(S3.client()).layout(S3Layout.IN_PLACE).build()
                .putObject(FencingToken.of(other, 6), atomicPut, RequestBody.fromString("v6"));
        assertThatThrownBy(() -> atomicZombie.putObject(FencingToken.of(other, 5), atomicPut,
                RequestBody.fromString("zombie"))).isInstanceOf(StaleTokenException.class);
    }

    @Test
    void aServerThatLosesTheToolkitsMetadataIsRefused() {
        try (S3Client lossy = S3.client(LOSES_THE_TOKEN)) {
            S3ServerCheck check = S3ServerCheck.run(lossy, bucket);
            assertThat(check.problems()).hasSize(2).allSatisfy(p -> assertThat(p).contains("fencing-token")
                    .contains("absent").contains(Long.toString((1L << 53) + 1)))
                    .anySatisfy(p -> assertThat(p).startsWith("HeadObject"))
                    .anySatisfy(p -> assertThat(p).startsWith("GetObject"));
        }
    }

    @Test
    void aMissingBucketIsNamedAndNotCreated() {
        String missing = "missing-" + UUID.randomUUID().toString().substring(0, 8);
        assertThatThrownBy(() -> S3ServerCheck.run(atomic, missing)).isInstanceOf(NoSuchBucketException.class)
                .hasMessageContaining(missing);
        assertThat(atomic.listBuckets().buckets()).noneMatch(b -> b.name().equals(missing));
    }

    @Test
    void badArgumentsAreRefusedBeforeAnyRequest() {
        assertThatThrownBy(() -> S3ServerCheck.run((S3Client) null, bucket)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("s3");
        assertThatThrownBy(() -> S3ServerCheck.run(atomic, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket");
    }
}
