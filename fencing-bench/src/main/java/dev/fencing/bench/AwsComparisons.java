package dev.fencing.bench;

import dev.fencing.cli.backends.ConnectionOptions;
import dev.fencing.core.FencingToken;
import dev.fencing.dynamodb.DynamoDbFencedStore;
import dev.fencing.dynamodb.FencedDynamoDb;
import dev.fencing.s3.FencedS3;
import dev.fencing.s3.S3Layout;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.S3TestServer;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Comparison 6: the fenced DynamoDB and S3 requests against plain ones, on the endpoints given or
 * on dynalite and S3Mock started here.
 */
final class AwsComparisons extends Comparisons {

    private final ConnectionOptions connections;

    AwsComparisons(BenchSession session, ConnectionOptions connections) {
        super(session);
        this.connections = connections;
    }

    // ---- 6: DynamoDB and S3 ----

    void awsComparisons(BenchRunner runner) throws Exception {
        String dynamoServer = connections.dynamoDbEndpoint().map(e -> "the DynamoDB endpoint " + e)
                .orElse("dynalite 4.0 (Node.js), same machine");
        String dynamoEndpoint = connections.dynamoDbEndpoint().orElseGet(() -> {
            DynamoDbTestServer dynalite = DynamoDbTestServer.launch();
            resources.push(dynalite::stop);
            return dynalite.endpoint();
        });
        DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(URI.create(dynamoEndpoint))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"))).build();
        resources.push(dynamo);
        DynamoDbFencedStore.createTable(dynamo, "bench", "pk");
        FencedDynamoDb fencedDynamo = FencedDynamoDb.create(dynamo);
        // above the marks an earlier run left on a server given by an option: microseconds of the clock
        AtomicLong tokens = new AtomicLong(System.currentTimeMillis() * 1000);
        add(6, "DynamoDB (dynalite): fenced PutItem / UpdateItem vs plain", runner.latency(List.of(
                new BenchRunner.Contender("plain PutItem", (w, i) -> dynamo.putItem(put("plain", i))),
                new BenchRunner.Contender("plain PutItem with the same attributes and condition, written by hand", (w, i) ->
                        dynamo.putItem(conditionalPut("by-hand", i, tokens.incrementAndGet()))),
                new BenchRunner.Contender("FencedDynamoDb.putItem", (w, i) ->
                        fencedDynamo.putItem(FencingToken.of("f", tokens.incrementAndGet()), put("fenced", i))),
                new BenchRunner.Contender("plain UpdateItem", (w, i) -> dynamo.updateItem(update("plain-u", i))),
                new BenchRunner.Contender("FencedDynamoDb.updateItem", (w, i) ->
                        fencedDynamo.updateItem(FencingToken.of("f", tokens.incrementAndGet()), update("fenced-u", i))))),
                Map.of("server", dynamoServer));

        String s3Server = connections.s3Endpoint().map(e -> "the S3 endpoint " + e)
                .orElse("S3Mock 5.2 (JVM child process), same machine");
        String s3Endpoint = connections.s3Endpoint().orElseGet(() -> {
            S3TestServer s3mock = S3TestServer.launch();
            resources.push(s3mock::stop);
            return s3mock.endpoint();
        });
        S3Client s3 = S3Client.builder().endpointOverride(URI.create(s3Endpoint)).forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"))).build();
        resources.push(s3);
        try {
            s3.createBucket(r -> r.bucket("bench"));
        } catch (BucketAlreadyOwnedByYouException | BucketAlreadyExistsException exists) {
            // a server given by an option, benchmarked before
        }
        FencedS3 warm = FencedS3.builder(s3).layout(S3Layout.IN_PLACE).build();
        FencedS3 cold = FencedS3.builder(s3).layout(S3Layout.IN_PLACE).etagCacheSize(0).build();
        FencedS3 pointerWarm = FencedS3.create(s3);
        FencedS3 pointerCold = FencedS3.builder(s3).etagCacheSize(0).build();
        add(6, "S3 (S3Mock): fenced PutObject in both layouts, cold and warm ETag cache, vs plain", runner.latency(List.of(
                new BenchRunner.Contender("plain PutObject", (w, i) ->
                        s3.putObject(PutObjectRequest.builder().bucket("bench").key("plain").build(), body(i))),
                new BenchRunner.Contender("FencedS3 IN_PLACE, cold cache (HEAD + PUT)", (w, i) ->
                        cold.putObject(FencingToken.of("c", tokens.incrementAndGet()),
                                PutObjectRequest.builder().bucket("bench").key("cold").build(), body(i))),
                new BenchRunner.Contender("FencedS3 IN_PLACE, warm cache (PUT)", (w, i) ->
                        warm.putObject(FencingToken.of("w", tokens.incrementAndGet()),
                                PutObjectRequest.builder().bucket("bench").key("warm").build(), body(i))),
                new BenchRunner.Contender("FencedS3 POINTER, cold cache (HEAD + PUT data + PUT pointer + DELETE old data)",
                        (w, i) -> pointerCold.putObject(FencingToken.of("pc", tokens.incrementAndGet()),
                                PutObjectRequest.builder().bucket("bench").key("pointer-cold").build(), body(i))),
                new BenchRunner.Contender("FencedS3 POINTER, warm cache (PUT data + PUT pointer + DELETE old data)",
                        (w, i) -> pointerWarm.putObject(FencingToken.of("pw", tokens.incrementAndGet()),
                                PutObjectRequest.builder().bucket("bench").key("pointer-warm").build(), body(i))))),
                Map.of("server", s3Server));
    }

    private static PutItemRequest put(String key, long i) {
        return PutItemRequest.builder().tableName("bench").item(Map.of("pk", AttributeValue.fromS(key),
                "n", AttributeValue.fromN(Long.toString(i)))).build();
    }

    /** What the fenced put sends: the token attribute, its condition, the old item on failure. */
    /**
     * The request {@code FencedDynamoDb.putItem} sends, written by hand: the same attributes (token,
     * lock name, write id) and the same three-clause condition, so the row beside it shows the
     * wrapper's own cost. (On dynalite the condition's length is most of a fenced put's cost: it
     * evaluates the three clauses in ~3 ms against ~1.4 ms for the token clause alone.)
     */
    private static PutItemRequest conditionalPut(String key, long i, long token) {
        String writeId = Long.toHexString(token) + "-" + i;
        return PutItemRequest.builder().tableName("bench").item(Map.of("pk", AttributeValue.fromS(key),
                        "n", AttributeValue.fromN(Long.toString(i)), "fencing_token", AttributeValue.fromN(Long.toString(token)),
                        "fencing_resource", AttributeValue.fromS("f"), "fencing_write", AttributeValue.fromS(writeId)))
                .conditionExpression("((attribute_not_exists(#fr) OR #fr = :fr) AND (attribute_not_exists(#ft) OR"
                        + " #ft <= :ft)) AND (attribute_not_exists(#fw) OR #fw <> :fw)")
                .expressionAttributeNames(Map.of("#ft", "fencing_token", "#fr", "fencing_resource", "#fw", "fencing_write"))
                .expressionAttributeValues(Map.of(":ft", AttributeValue.fromN(Long.toString(token)),
                        ":fr", AttributeValue.fromS("f"), ":fw", AttributeValue.fromS(writeId)))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build();
    }

    private static UpdateItemRequest update(String key, long i) {
        return UpdateItemRequest.builder().tableName("bench").key(Map.of("pk", AttributeValue.fromS(key)))
                .updateExpression("SET n = :n").expressionAttributeValues(Map.of(":n", AttributeValue.fromN(Long.toString(i))))
                .build();
    }

    private static RequestBody body(long i) {
        return RequestBody.fromString("payload " + i);
    }
}
