package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.extensions.annotations.DynamoDbAtomicCounter;
import software.amazon.awssdk.enhanced.dynamodb.extensions.annotations.DynamoDbVersionAttribute;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbAttribute;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;
import software.amazon.awssdk.enhanced.dynamodb.model.GetItemEnhancedRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * With the fencing extension installed as docs/dynamodb.md shows, the SDK's default extensions still
 * work: a stale {@code @DynamoDbVersionAttribute} write is refused, and {@code @DynamoDbAtomicCounter}
 * counts. (Given alone to {@code .extensions(...)}, any extension replaces the defaults.)
 */
class EnhancedDynamoDefaultsIT {

    @DynamoDbBean
    public static class VersionedAccount {
        private String pk;
        private Long balance;
        private Long fencingToken;
        private Long version;
        private Long visits;

        static VersionedAccount of(String pk, long balance, long token, Long version) {
            VersionedAccount account = new VersionedAccount();
            account.setPk(pk);
            account.setBalance(balance);
            account.setFencingToken(token);
            account.setVersion(version);
            return account;
        }

        @DynamoDbPartitionKey
        public String getPk() {
            return pk;
        }

        public void setPk(String pk) {
            this.pk = pk;
        }

        public Long getBalance() {
            return balance;
        }

        public void setBalance(Long balance) {
            this.balance = balance;
        }

        @DynamoDbFencingToken
        @DynamoDbAttribute("fencing_token")
        public Long getFencingToken() {
            return fencingToken;
        }

        public void setFencingToken(Long fencingToken) {
            this.fencingToken = fencingToken;
        }

        @DynamoDbVersionAttribute
        public Long getVersion() {
            return version;
        }

        public void setVersion(Long version) {
            this.version = version;
        }

        @DynamoDbAtomicCounter
        public Long getVisits() {
            return visits;
        }

        public void setVisits(Long visits) {
            this.visits = visits;
        }
    }

    private final DynamoDbClient client = Dynamo.client();
    private final DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(client)
            .extensions(FencingTokenExtension.of(FencedDynamoDb.create(client)).withSdkDefaults()).build();
    private final DynamoDbTable<VersionedAccount> accounts =
            enhanced.table(Dynamo.newTable(client), TableSchema.fromBean(VersionedAccount.class));

    private VersionedAccount read(String id) {
        return accounts.getItem(GetItemEnhancedRequest.builder().key(Key.builder().partitionValue(id).build())
                .consistentRead(true).build());
    }

    @Test
    void aStaleVersionIsStillRefusedWithTheFencingExtensionInstalled() {
        String id = "account-" + UUID.randomUUID();
        accounts.putItem(VersionedAccount.of(id, 100, 1, null));
        VersionedAccount first = read(id);
        assertThat(first.getVersion()).isEqualTo(1);
        accounts.updateItem(VersionedAccount.of(id, 150, 1, first.getVersion()));
        assertThat(read(id).getVersion()).isEqualTo(2);

        assertThatThrownBy(() -> accounts.putItem(VersionedAccount.of(id, 70, 1, first.getVersion())))
                .as("a put from a stale read, with a token that is fine").isInstanceOf(ConditionalCheckFailedException.class);
        assertThatThrownBy(() -> accounts.updateItem(VersionedAccount.of(id, 70, 2, first.getVersion())))
                .as("an update from a stale read, with a newer token").isInstanceOf(ConditionalCheckFailedException.class);
        assertThatThrownBy(() -> accounts.putItem(VersionedAccount.of(id, 70, 1, null)))
                .as("a put that believes the item is new").isInstanceOf(ConditionalCheckFailedException.class);
        assertThat(read(id).getBalance()).isEqualTo(150);

        accounts.updateItem(VersionedAccount.of(id, 70, 1, 2L)); // the current version and token: accepted
        assertThat(read(id).getBalance()).isEqualTo(70);
    }

    @Test
    void theFencingConditionStillAppliesWhenTheVersionIsRight() {
        String id = "account-" + UUID.randomUUID();
        accounts.putItem(VersionedAccount.of(id, 100, 5, null));
        assertThatThrownBy(() -> accounts.updateItem(VersionedAccount.of(id, 70, 4, 1L)))
                .isInstanceOf(ConditionalCheckFailedException.class);
        assertThat(read(id).getBalance()).isEqualTo(100);
        assertThat(read(id).getVersion()).isEqualTo(1);
    }

    @Test
    void anAtomicCounterStillCountsWithTheFencingExtensionInstalled() {
        String id = "account-" + UUID.randomUUID();
        accounts.putItem(VersionedAccount.of(id, 100, 1, null));
        Long before = read(id).getVisits();
        assertThat(before).as("the counter extension initialised the counter").isNotNull();
        accounts.updateItem(VersionedAccount.of(id, 100, 1, 1L));
        accounts.updateItem(VersionedAccount.of(id, 100, 1, 2L));
        assertThat(read(id).getVisits()).isEqualTo(before + 2);
    }
}
