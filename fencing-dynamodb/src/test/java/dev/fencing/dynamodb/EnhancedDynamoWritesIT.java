package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Policy;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbAttribute;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;
import software.amazon.awssdk.enhanced.dynamodb.model.WriteBatch;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/** What the extension refuses before any request, and what the SDK refuses for it. */
class EnhancedDynamoWritesIT {

    @DynamoDbBean
    public static class DoubleToken {
        private String pk;
        private Double token;

        @DynamoDbPartitionKey
        public String getPk() {
            return pk;
        }

        public void setPk(String pk) {
            this.pk = pk;
        }

        @DynamoDbFencingToken
        @DynamoDbAttribute("fencing_token")
        public Double getToken() {
            return token;
        }

        public void setToken(Double token) {
            this.token = token;
        }
    }

    /** Maps the tombstone marker: a bean could forge or keep a tombstone. */
    @DynamoDbBean
    public static class MapsTheMarker extends Account {
        private Boolean deleted;

        @DynamoDbAttribute("fencing_deleted")
        public Boolean getDeleted() {
            return deleted;
        }

        public void setDeleted(Boolean deleted) {
            this.deleted = deleted;
        }
    }

    private final DynamoDbClient client = Dynamo.client();
    private final String table = Dynamo.newTable(client);
    private final DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(client)
            .extensions(FencingTokenExtension.create().withSdkDefaults()).build();

    private boolean stored(String id) {
        return client.getItem(r -> r.tableName(table).key(Map.of("pk", AttributeValue.fromS(id))).consistentRead(true))
                .hasItem();
    }

    @Test
    void aDoubleTokenIsRefusedBeforeAnyRequest() {
        DynamoDbTable<DoubleToken> beans = enhanced.table(table, TableSchema.fromBean(DoubleToken.class));
        DoubleToken bean = new DoubleToken();
        bean.setPk("d-" + UUID.randomUUID());
        bean.setToken(9007199254740993.0); // 2^53 + 1, which a double cannot hold
        assertThatThrownBy(() -> beans.putItem(bean))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a positive whole number")
                .hasMessageContaining("held in a Long");
        assertThat(stored(bean.getPk())).isFalse();
    }

    @Test
    void aBeanThatMapsTheTombstoneMarkerIsRefused() {
        DynamoDbTable<MapsTheMarker> beans = enhanced.table(table, TableSchema.fromBean(MapsTheMarker.class));
        MapsTheMarker bean = new MapsTheMarker();
        bean.setPk("m-" + UUID.randomUUID());
        bean.setFencingToken(1L);
        bean.setDeleted(false);
        assertThatThrownBy(() -> beans.updateItem(bean))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maps 'fencing_deleted'");
        assertThat(stored(bean.getPk())).isFalse();
    }

    @Test
    void anExtensionConfiguredWithAnotherTokenNameThanTheSchemaIsRefused() {
        DynamoDbEnhancedClient mismatched = DynamoDbEnhancedClient.builder().dynamoDbClient(client)
                .extensions(FencingTokenExtension.create("lease_token", "fencing_deleted", Policy.MONOTONIC).withSdkDefaults())
                .build();
        DynamoDbTable<Account> accounts = mismatched.table(table, TableSchema.fromBean(Account.class));
        String id = "x-" + UUID.randomUUID();
        assertThatThrownBy(() -> accounts.putItem(Account.of(id, 1L, "n", 1L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keeps its fencing token in 'fencing_token', but this FencingTokenExtension")
                .hasMessageContaining("uses 'lease_token'");
        assertThat(stored(id)).isFalse();
        assertThatThrownBy(() -> FencedTable.of(enhanced.table(table, TableSchema.fromBean(Account.class)),
                FencedDynamoDb.builder(client).tokenAttribute("lease_token").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keeps it in 'lease_token'");
    }

    @Test
    void strictRefusesAnEqualTokenOnTheEnhancedPathToo() {
        FencedDynamoDb strict = FencedDynamoDb.builder(client).policy(Policy.STRICT).build();
        DynamoDbTable<Account> accounts = DynamoDbEnhancedClient.builder().dynamoDbClient(client)
                .extensions(FencingTokenExtension.of(strict).withSdkDefaults()).build()
                .table(table, TableSchema.fromBean(Account.class));
        String id = "s-" + UUID.randomUUID();
        accounts.putItem(Account.of(id, 1L, "n", 4L));
        assertThatThrownBy(() -> accounts.putItem(Account.of(id, 2L, "n", 4L))).isInstanceOf(ConditionalCheckFailedException.class);
        accounts.putItem(Account.of(id, 3L, "n", 5L));
    }

    /** BatchWriteItem cannot carry a condition: the SDK refuses a batch put that an extension conditioned. */
    @Test
    void anEnhancedBatchPutOfAFencedBeanIsRefused() {
        DynamoDbTable<Account> accounts = enhanced.table(table, TableSchema.fromBean(Account.class));
        String id = "b-" + UUID.randomUUID();
        assertThatThrownBy(() -> enhanced.batchWriteItem(request -> request.addWriteBatch(WriteBatch.builder(Account.class)
                .mappedTableResource(accounts).addPutItem(Account.of(id, 1L, "n", 1L)).build())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("conditionExpression in a PutItem request as part of a BatchWriteItemRequest");
        assertThat(stored(id)).isFalse();
    }
}
