package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/** The enhanced-client extension on a bean with {@code @DynamoDbFencingToken}. */
class FencingTokenExtensionIT {

    private final DynamoDbClient client = Dynamo.client();
    private final DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(client)
            .extensions(FencingTokenExtension.create().withSdkDefaults()).build();
    private final DynamoDbTable<Account> accounts = enhanced.table(Dynamo.newTable(client), TableSchema.fromBean(Account.class));

    private static Account account(String id, long balance, Long token) {
        Account account = new Account();
        account.setPk(id);
        account.setBalance(balance);
        account.setFencingToken(token);
        return account;
    }

    @Test
    void theZombiesBeanWriteIsRefusedAndTheNewerHoldersSurvives() {
        String id = "account-" + UUID.randomUUID();
        accounts.putItem(account(id, 100, 1L));
        accounts.updateItem(account(id, 150, 3L));
        assertThatThrownBy(() -> accounts.putItem(account(id, 70, 2L))).isInstanceOf(ConditionalCheckFailedException.class);
        assertThatThrownBy(() -> accounts.updateItem(account(id, 70, 2L))).isInstanceOf(ConditionalCheckFailedException.class);
        Account stored = accounts.getItem(Key.builder().partitionValue(id).build());
        assertThat(stored.getBalance()).isEqualTo(150);
        assertThat(stored.getFencingToken()).isEqualTo(3);
        accounts.putItem(account(id, 1, 3L)); // the same holder writes again under MONOTONIC
    }

    @Test
    void aBeanWithoutItsTokenIsRefusedBeforeAnyRequest() {
        String id = "account-" + UUID.randomUUID();
        assertThatThrownBy(() -> accounts.putItem(account(id, 100, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencing token attribute 'fencing_token'")
                .hasMessageContaining("must be set to the lease's token");
        assertThat(accounts.getItem(Key.builder().partitionValue(id).build())).isNull();
    }
}
