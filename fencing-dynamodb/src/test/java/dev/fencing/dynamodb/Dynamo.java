package dev.fencing.dynamodb;

import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.Get;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;

/** Clients for the testkit's DynamoDB-compatible server (dynalite, or FENCING_DYNAMODB_ENDPOINT). */
final class Dynamo {

    private static DynamoDbClient client;

    private Dynamo() {}

    static synchronized DynamoDbClient client() {
        if (client == null) {
            client = client(TestServers.dynamoDb().endpoint());
        }
        return client;
    }

    /** A client of its own, as another process would have. */
    static DynamoDbClient newClient() {
        return client(TestServers.dynamoDb().endpoint());
    }

    static DynamoDbClient client(String endpoint) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    static DynamoDbAsyncClient asyncClient() {
        return asyncClient(TestServers.dynamoDb().endpoint());
    }

    static DynamoDbAsyncClient asyncClient(String endpoint) {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(NettyNioAsyncHttpClient.create())
                .build();
    }

    /**
     * Aborts the calling test, with the reason printed, unless {@code client}'s server has
     * transactions (dynalite has none; a server given by FENCING_DYNAMODB_ENDPOINT, or LocalStack, may).
     */
    static void assumeTransactions(DynamoDbClient client, String table, String test) {
        try {
            client.transactGetItems(TransactGetItemsRequest.builder().transactItems(TransactGetItem.builder()
                    .get(Get.builder().tableName(table).key(Map.of("pk", AttributeValue.fromS("probe"))).build())
                    .build()).build());
        } catch (DynamoDbException e) {
            String reason = "the DynamoDB test server has no transactions (" + e.awsErrorDetails().errorCode()
                    + "); set FENCING_DYNAMODB_ENDPOINT to a server with transactions, or run with Docker for LocalStack";
            System.out.println("SKIPPED " + test + ": " + reason);
            Assumptions.abort(reason);
        }
    }

    /** A new table with string partition key {@code pk}. */
    static String newTable(DynamoDbClient client) {
        String table = "fencing-" + UUID.randomUUID().toString().substring(0, 8);
        DynamoDbFencedStore.createTable(client, table, "pk");
        return table;
    }
}
