package dev.fencing.dynamodb;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;

/**
 * {@link DynamoDbFencedStore} on the testkit's DynamoDB-compatible server; each store with a client of
 * its own (closed after the test), as another process would have.
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
        return DynamoDbFencedStore.create(closeAfterTest(Dynamo.newClient()), table(), "pk", policy, FencingListener.NONE);
    }
}
