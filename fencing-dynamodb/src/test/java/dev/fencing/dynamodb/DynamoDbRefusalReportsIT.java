package dev.fencing.dynamodb;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.RefusalReportsContract;

/** One WARN and one listener event per refusal through {@link DynamoDbFencedStore}, whose writes go through {@link FencedDynamoDb}. */
class DynamoDbRefusalReportsIT extends RefusalReportsContract {

    private static String table;

    private static synchronized String table() {
        if (table == null) {
            table = Dynamo.newTable(Dynamo.client());
        }
        return table;
    }

    @Override
    protected FencedStore createStore(FencingListener listener) {
        return DynamoDbFencedStore.builder(Dynamo.client(), table()).listener(listener).build();
    }
}
