package dev.fencing.s3;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link S3FencedStore} against the testkit's S3 server. The contract's races (zombie ×25 rounds,
 * 8×20 concurrent increments) need an atomic arbiter of conditional puts: the tests go through
 * {@link S3#client}, i.e. the testkit's serializing proxy in front of S3Mock, or an atomic server
 * given by {@code FENCING_S3_ENDPOINT}.
 */
class S3FencedStoreIT extends FencedStoreContract {

    private static S3Client s3;
    private static String bucket;

    private static synchronized String bucket() {
        if (s3 == null) {
            s3 = S3.client();
            bucket = S3.newBucket(s3);
        }
        return bucket;
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        String name = bucket();
        return S3FencedStore.create(s3, name, "store/", policy, FencingListener.NONE);
    }
}
