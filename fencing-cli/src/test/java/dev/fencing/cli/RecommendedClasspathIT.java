package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.dynamodb.FencedDynamoDbAsync;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.netty.util.Version;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The classpath docs/installing.md recommends ("One Netty"): Lettuce and the AWS SDK's
 * Netty client in one application, aligned on one Netty by importing {@code netty-bom} — this
 * module does exactly that. One JVM takes a Redis lease and writes a fenced DynamoDB item through
 * the Netty async client with the lease's token.
 */
class RecommendedClasspathIT {

    @Test
    void lettuceAndTheAwsNettyClientRunOnOneNetty() throws Exception {
        Set<String> nettyVersions = new TreeSet<>();
        Version.identify().values().forEach(v -> nettyVersions.add(v.artifactVersion()));
        assertThat(nettyVersions).as("versions of the Netty artifacts on the classpath").hasSize(1);

        String table = "classpath-" + UUID.randomUUID();
        try (RedisLockProvider locks = RedisLockProvider.create(TestServers.redis().uri());
                DynamoDbAsyncClient dynamoDb = DynamoDbAsyncClient.builder()
                        .endpointOverride(URI.create(TestServers.dynamoDb().endpoint()))
                        .region(Region.of(DynamoDbTestServer.REGION))
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                        .httpClient(NettyNioAsyncHttpClient.create()).build()) {
            dynamoDb.createTable(request -> request.tableName(table).billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("pk")
                            .attributeType(ScalarAttributeType.S).build())
                    .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())).get();
            FencedDynamoDbAsync fenced = FencedDynamoDbAsync.create(dynamoDb);
            try (Lease lease = locks.acquire("account-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                fenced.putItem(lease.token(), PutItemRequest.builder().tableName(table)
                        .item(Map.of("pk", AttributeValue.fromS("account-7"), "balance", AttributeValue.fromN("150")))
                        .build()).get();
            }
            Map<String, AttributeValue> item = dynamoDb.getItem(request -> request.tableName(table)
                    .key(Map.of("pk", AttributeValue.fromS("account-7"))).consistentRead(true)).get().item();
            assertThat(item.get("balance").n()).isEqualTo("150");
            assertThat(item).containsKey("fencing_token").containsEntry("fencing_resource",
                    AttributeValue.fromS("account-7"));
        }
    }
}
