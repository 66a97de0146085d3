package dev.fencing.azure.blob;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.RefusalReportsContract;

/** One WARN and one listener event per refusal through {@link AzureBlobFencedStore}. */
class AzureBlobRefusalReportsIT extends RefusalReportsContract {

    private static String container;

    private static synchronized String container() {
        if (container == null) {
            container = Blobs.newContainer();
        }
        return container;
    }

    @Override
    protected FencedStore createStore(FencingListener listener) {
        return AzureBlobFencedStore.builder(Blobs.container(container())).keyPrefix("reports/").listener(listener).build();
    }
}
