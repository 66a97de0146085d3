package dev.fencing.dynamodb;

import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

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

    static DynamoDbClient client(String endpoint) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    static DynamoDbAsyncClient asyncClient() {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(URI.create(TestServers.dynamoDb().endpoint()))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(NettyNioAsyncHttpClient.create())
                .build();
    }

    /** A new table with string partition key {@code pk}. */
    static String newTable(DynamoDbClient client) {
        String table = "fencing-" + UUID.randomUUID().toString().substring(0, 8);
        DynamoDbFencedStore.createTable(client, table, "pk");
        return table;
    }
}
