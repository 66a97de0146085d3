package dev.fencing.gcs;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.RefusalReportsContract;

/** One WARN and one listener event per refusal through {@link GcsFencedStore}. */
class GcsRefusalReportsIT extends RefusalReportsContract {

    private static String bucket;

    private static synchronized String bucket() {
        if (bucket == null) {
            bucket = Gcs.newBucket();
        }
        return bucket;
    }

    @Override
    protected FencedStore createStore(FencingListener listener) {
        return GcsFencedStore.builder(Gcs.client(), bucket()).keyPrefix("reports/").listener(listener).build();
    }
}
