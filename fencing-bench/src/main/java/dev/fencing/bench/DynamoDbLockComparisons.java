package dev.fencing.bench;

import com.amazonaws.services.dynamodbv2.AcquireLockOptions;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClient;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClientOptions;
import com.amazonaws.services.dynamodbv2.CreateDynamoDBTableOptions;
import com.amazonaws.services.dynamodbv2.LockItem;
import dev.fencing.cli.backends.ConnectionOptions;
import dev.fencing.core.LeaseOptions;
import dev.fencing.dynamodb.lock.DynamoDbLockProvider;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughput;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;

/**
 * Comparison 12: the toolkit's DynamoDB lock against {@code amazon-dynamodb-lock-client} (AWS's own,
 * whose "record version number" is a random UUID: no fencing token) and a bare conditional
 * write and delete (the floor: one item, no token, no lease bookkeeping), one thread, uncontended,
 * on dynalite or the endpoint given.
 */
final class DynamoDbLockComparisons extends Comparisons {

    private final ConnectionOptions connections;

    DynamoDbLockComparisons(BenchSession session, ConnectionOptions connections) {
        super(session);
        this.connections = connections;
    }

    void run(BenchRunner runner) throws Exception {
        String server = connections.dynamoDbEndpoint().map(e -> "the DynamoDB endpoint " + e)
                .orElse("dynalite 4.0 (Node.js), same machine");
        String endpoint = connections.dynamoDbEndpoint().orElseGet(() -> {
            DynamoDbTestServer dynalite = DynamoDbTestServer.launch();
            resources.push(dynalite::stop);
            return dynalite.endpoint();
        });
        RequestCounters.SdkRequests sent = new RequestCounters.SdkRequests();
        DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(URI.create(endpoint))
                .overrideConfiguration(c -> c.addExecutionInterceptor(sent))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"))).build();
        resources.push(dynamo);
        DynamoDbLockProvider.createTable(dynamo, "bench-locks");
        DynamoDbLockProvider ours = DynamoDbLockProvider.builder(dynamo).table("bench-locks").build();
        resources.push(ours);
        try {
            AmazonDynamoDBLockClient.createLockTableInDynamoDB(CreateDynamoDBTableOptions.builder(dynamo,
                    ProvisionedThroughput.builder().readCapacityUnits(100L).writeCapacityUnits(100L).build(),
                    "bench-aws-locks").build());
        } catch (ResourceInUseException exists) {
            // a server given by an option, benchmarked before
        }
        AmazonDynamoDBLockClient aws = new AmazonDynamoDBLockClient(AmazonDynamoDBLockClientOptions.builder(dynamo,
                "bench-aws-locks").withLeaseDuration(30L).withHeartbeatPeriod(10L).withTimeUnit(TimeUnit.SECONDS)
                .withCreateHeartbeatBackgroundThread(false).build());
        resources.push(aws);
        LeaseOptions lease = LeaseOptions.ofTtl(Duration.ofSeconds(30));
        List<BenchRunner.Contender> contenders = List.of(
                        new BenchRunner.Contender("bare conditional PutItem + DeleteItem (floor: no token, no lease)",
                                (w, i) -> {
                                    Map<String, AttributeValue> key = Map.of("resource", AttributeValue.fromS("raw-" + w));
                                    dynamo.putItem(r -> r.tableName("bench-locks").item(Map.of("resource",
                                            AttributeValue.fromS("raw-" + w), "owner", AttributeValue.fromS("o")))
                                            .conditionExpression("attribute_not_exists(#o)")
                                            .expressionAttributeNames(Map.of("#o", "owner")));
                                    dynamo.deleteItem(r -> r.tableName("bench-locks").key(key));
                                }),
                        new BenchRunner.Contender("fencing DynamoDbLockProvider tryAcquire + release", (w, i) ->
                                ours.tryAcquire("ours-" + w, lease).orElseThrow().release()),
                        new BenchRunner.Contender("amazon-dynamodb-lock-client 1.3.0 tryAcquireLock + releaseLock",
                                (w, i) -> {
                                    LockItem item = aws.tryAcquireLock(AcquireLockOptions.builder("aws-" + w).build())
                                            .orElseThrow();
                                    aws.releaseLock(item);
                                }));
        add(12, "DynamoDB lock vs amazon-dynamodb-lock-client: acquire + release, one thread, uncontended",
                runner.latency(contenders), Map.of("server", server));
        CycleAccounting.addTo(results.get(results.size() - 1), CycleAccounting.of(contenders, sent));
    }
}
