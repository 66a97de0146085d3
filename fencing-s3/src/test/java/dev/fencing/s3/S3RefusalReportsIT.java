package dev.fencing.s3;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.RefusalReportsContract;

/** One WARN and one listener event per refusal through {@link S3FencedStore}, whose writes go through {@link FencedS3}. */
class S3RefusalReportsIT extends RefusalReportsContract {

    private static String bucket;

    private static synchronized String bucket() {
        if (bucket == null) {
            bucket = S3.newBucket(S3.client());
        }
        return bucket;
    }

    @Override
    protected FencedStore createStore(FencingListener listener) {
        return S3FencedStore.builder(S3.client(), bucket()).keyPrefix("reports/").listener(listener).build();
    }
}
