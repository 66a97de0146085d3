package dev.fencing.dynamodb.lock;

import dev.fencing.testkit.servers.TestServers;
import java.util.HashSet;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** A new client of the testkit's dynalite (or of {@code endpoint}) whose lock table exists: each test class's own table. */
final class LockTables {

    private static final Set<String> CREATED = new HashSet<>();

    private LockTables() {}

    /** A client of the testkit's dynalite; {@code table} is created (default keys) the first time. */
    static DynamoDbClient client(String table) {
        return client(TestServers.dynamoDb().endpoint(), table);
    }

    /** A client of {@code endpoint}; {@code table} is created (default keys) the first time. */
    static synchronized DynamoDbClient client(String endpoint, String table) {
        DynamoDbClient client = DynamoDbLockProviderIT.client(endpoint);
        if (CREATED.add(endpoint + "/" + table)) {
            DynamoDbLockProvider.createTable(client, table);
        }
        return client;
    }
}
