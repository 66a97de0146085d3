package dev.fencing.dynamodb;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.LostReplies;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;

/**
 * {@link DynamoDbFencedStore} on the testkit's DynamoDB-compatible server; each store with a client of
 * its own (closed after the test), as another process would have; lost replies through the testkit's proxy.
 */
class DynamoDbFencedStoreIT extends FencedStoreContract {

    private static String table;

    private static synchronized String table() {
        if (table == null) {
            table = Dynamo.newTable(Dynamo.client());
        }
        return table;
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        return DynamoDbFencedStore.builder(closeAfterTest(Dynamo.newClient()), table()).policy(policy).build();
    }

    /**
     * Stores whose clients pass through a proxy that drops the reply to an {@code UpdateItem} (every
     * write of the store, deletes too). Each fenced write carries a write id, so the store proves its
     * own landed write.
     */
    @Override
    protected LostReplies lostReplies() {
        ReplyDroppingProxy proxy = ReplyDroppingProxy.inFrontOf(TestServers.dynamoDb().endpoint());
        return LostReplies.through(proxy, "DynamoDB_20120810.UpdateItem", true, policy -> DynamoDbFencedStore
                .builder(closeAfterTest(Dynamo.client(proxy.httpEndpoint())), table()).policy(policy).build());
    }
}
