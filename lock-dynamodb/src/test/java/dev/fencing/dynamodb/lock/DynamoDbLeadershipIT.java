package dev.fencing.dynamodb.lock;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Leader election on the DynamoDB lock, each candidate with a client of its own. */
class DynamoDbLeadershipIT extends LeadershipContract {

    private static final String TABLE = "fencing_leaders_it";

    private static DynamoDbClient newClient() {
        return LockTables.client(TABLE);
    }

    /**
     * 3 s, not the contract's 1.5 s: dynalite, a Node.js emulator, answered renewals slower than a 1.5 s term
     * allows on a machine busy with two builds, and terms lapsed in tests about something else.
     */
    @Override
    protected Duration ttl() {
        return Duration.ofSeconds(3);
    }

    @Override
    protected LockProvider createProvider() {
        return DynamoDbLockProvider.builder(newClient()).table(TABLE).requestTimeout(Duration.ofSeconds(10)).build();
    }

    /** A client behind a proxy that holds every reply, renewals included. */
    @Override
    protected Optional<UnclearReplies> silencedClient() {
        newClient();
        LaggingProxy proxy = LaggingProxy.start("127.0.0.1", URI.create(TestServers.dynamoDb().endpoint()).getPort());
        DynamoDbClient client = DynamoDbLockProviderIT.client("http://127.0.0.1:" + proxy.port());
        DynamoDbLockProvider silenced = DynamoDbLockProvider.builder(client).table(TABLE)
                .requestTimeout(Duration.ofSeconds(1)).build();
        return Optional.of(UnclearReplies.of(silenced, proxy::holdReplies, proxy::passReplies, () -> {
            silenced.close();
            client.close();
            proxy.close();
        }));
    }
}
