package dev.fencing.gcs;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.LostReplies;
import dev.fencing.testkit.ReplyDroppingProxy;

/**
 * {@link GcsFencedStore} against the testkit's GCS testbench: each store on a client of its own, as
 * separate processes would be. The testbench arbitrates racing preconditions itself (exactly one
 * winner, measured in {@link RacingPreconditionsIT}), so no proxy serializes them.
 */
class GcsFencedStoreIT extends FencedStoreContract {

    private static String bucket;

    private static synchronized String bucket() {
        if (bucket == null) {
            bucket = Gcs.newBucket();
        }
        return bucket;
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        return GcsFencedStore.builder(Gcs.client(), bucket()).keyPrefix("store/").policy(policy).build();
    }

    /**
     * Stores whose clients pass through a proxy that drops the reply to an upload (every write, a
     * delete's tombstone too). Each upload carries a write id, so the store proves its own landed
     * write.
     */
    @Override
    protected LostReplies lostReplies() {
        ReplyDroppingProxy proxy = ReplyDroppingProxy.inFrontOf(Gcs.server().endpoint());
        return LostReplies.through(proxy, "POST /upload/", true, policy -> GcsFencedStore
                .builder(Gcs.client(proxy.httpEndpoint()), bucket()).keyPrefix("store/").policy(policy).build());
    }
}
