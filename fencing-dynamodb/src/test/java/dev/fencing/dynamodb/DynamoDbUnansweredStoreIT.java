package dev.fencing.dynamodb;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.UnansweredStoreContract;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** {@link DynamoDbFencedStore} through a link that stops answering: the toolkit's exceptions, never the SDK's timeout. */
class DynamoDbUnansweredStoreIT extends UnansweredStoreContract {

    private static PartitionProxy link;
    private static DynamoDbClient client;
    private static String table;

    @BeforeAll
    static void start() {
        URI server = URI.create(TestServers.dynamoDb().endpoint());
        link = PartitionProxy.start(server.getHost(), server.getPort());
        client = Dynamo.client("http://127.0.0.1:" + link.port());
        table = Dynamo.newTable(client);
    }

    @AfterAll
    static void stop() {
        client.close();
        link.close();
    }

    @Override
    protected FencedStore createStoreThroughLink(FencingListener listener) {
        return DynamoDbFencedStore.builder(client, table).requestTimeout(Duration.ofSeconds(1)).listener(listener).build();
    }

    @Override
    protected void cutLink() {
        link.cut();
    }

    @Override
    protected void healLink() {
        link.heal();
    }
}
