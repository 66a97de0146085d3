package dev.fencing.azure.blob;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.LostReplies;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;

/**
 * {@link AzureBlobFencedStore} against the testkit's Azurite: each store on a client of its own, as
 * separate processes would be. Azurite arbitrates racing conditional uploads itself (exactly one
 * winner, measured in {@link RacingConditionalWritesIT}), so no proxy serializes them.
 */
class AzureBlobFencedStoreIT extends FencedStoreContract {

    private static String container;

    private static synchronized String container() {
        if (container == null) {
            container = Blobs.newContainer();
        }
        return container;
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        return AzureBlobFencedStore.builder(Blobs.container(container())).keyPrefix("store/").policy(policy).build();
    }

    /**
     * Stores whose clients pass through a proxy that drops the reply to a {@code PUT} (every
     * upload, a delete's tombstone too). Each upload carries a write id, so the store proves its
     * own landed write.
     */
    @Override
    protected LostReplies lostReplies() {
        ReplyDroppingProxy proxy = ReplyDroppingProxy.inFrontOf(TestServers.azureBlob().endpoint());
        return LostReplies.through(proxy, "PUT /", true, policy -> AzureBlobFencedStore
                .builder(Blobs.service(Blobs.through(proxy.httpEndpoint())).getBlobContainerClient(container()))
                .keyPrefix("store/").policy(policy).build());
    }
}
