package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.LostReplies;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * {@link S3FencedStore} against the testkit's S3 server. Each store gets its own client (closed after
 * the test) and its own ETag cache, as separate processes would. The contract's races (zombie ×25 rounds, 8×20
 * concurrent increments) need an atomic arbiter of conditional puts: the tests go through
 * {@link S3#client}, i.e. the testkit's serializing proxy in front of S3Mock, or an atomic server
 * given by {@code FENCING_S3_ENDPOINT}.
 */
class S3FencedStoreIT extends FencedStoreContract {

    private static String bucket;

    private static synchronized String bucket() {
        if (bucket == null) {
            bucket = S3.newBucket(S3.client());
        }
        return bucket;
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        return S3FencedStore.builder(closeAfterTest(S3.client()), bucket()).keyPrefix("store/").policy(policy).build();
    }

    /**
     * Stores whose clients pass through a proxy in front of the atomic endpoint that drops the reply
     * to a {@code PUT} (every write of the in-place layout, a delete's tombstone too). Each fenced
     * PUT carries a write id, so the store proves its own landed write.
     */
    @Override
    protected LostReplies lostReplies() {
        ReplyDroppingProxy proxy = ReplyDroppingProxy.inFrontOf(TestServers.s3().atomicEndpoint());
        return LostReplies.through(proxy, "PUT /", true, policy -> S3FencedStore
                .builder(closeAfterTest(S3.client(proxy.httpEndpoint())), bucket()).keyPrefix("store/").policy(policy).build());
    }

    /**
     * An update whose conditional put landed but whose answer was lost (the SDK retries and gets
     * 412 from its own write) counts once: the store recognises its write id instead of reloading
     * and applying the increment a second time.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void anUpdateWhoseAnswerWasLostIsAppliedExactlyOnce(Policy policy) {
        String key = key("counter");
        store.write(token(1), key, "41");
        AtomicBoolean lost = new AtomicBoolean();
        ExecutionInterceptor loseFirstConditionalPutAnswer = new ExecutionInterceptor() {
            @Override
            public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
                if (context.request() instanceof PutObjectRequest r && r.ifMatch() != null
                        && context.httpResponse().isSuccessful() && lost.compareAndSet(false, true)) {
                    return context.httpResponse().toBuilder().statusCode(500).build();
                }
                return context.httpResponse();
            }
        };
        S3Client lossy = closeAfterTest(S3.client(loseFirstConditionalPutAnswer));
        FencedStore updater = S3FencedStore.builder(lossy, bucket()).keyPrefix("store/").policy(policy).build();

        StoredValue written = updater.update(token(2), key, v -> Integer.toString(Integer.parseInt(v.orElseThrow()) + 1));

        assertThat(lost).isTrue();
        assertThat(written).isEqualTo(new StoredValue(key, "42", 2));
        assertThat(store.read(key)).contains(new StoredValue(key, "42", 2));
    }
}
