package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@link DynamoDbFencedStore.Builder}, {@link FencedDynamoDb.Builder} and
 * {@link FencedDynamoDbAsync.Builder} refuse what they cannot use, naming the value and what is
 * allowed; no request is sent.
 */
class DynamoDbBuildersTest {

    private static final DynamoDbClient CLIENT = Dynamo.client("http://127.0.0.1:9");
    private static final DynamoDbAsyncClient ASYNC = Dynamo.asyncClient("http://127.0.0.1:9");

    @AfterAll
    static void close() {
        CLIENT.close();
        ASYNC.close();
    }

    @Test
    void theStoreNeedsAClientAndATableName() {
        assertThatThrownBy(() -> DynamoDbFencedStore.builder(null, "t"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client must not be null");
        assertThatThrownBy(() -> DynamoDbFencedStore.builder(CLIENT, " "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table must not be blank, got ' '");
        assertThatThrownBy(() -> DynamoDbFencedStore.create(CLIENT, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table must not be null");
    }

    @Test
    void theStoresKeyAttributeIsNoneOfItsOwn() {
        for (String own : new String[] {"v", "version", "fencing_token"}) {
            assertThatThrownBy(() -> DynamoDbFencedStore.builder(CLIENT, "t").keyAttribute(own))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("keyAttribute '" + own + "' is one of the store's own attributes (v, version,"
                            + " fencing_*)");
        }
        assertThatThrownBy(() -> DynamoDbFencedStore.builder(CLIENT, "t").keyAttribute(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyAttribute must be 1 to 255 bytes without control characters, got ''");
    }

    @Test
    void theStoresPolicyListenerAndTimeoutAreChecked() {
        DynamoDbFencedStore.Builder builder = DynamoDbFencedStore.builder(CLIENT, "t");
        assertThatThrownBy(() -> builder.policy(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy must not be null");
        assertThatThrownBy(() -> builder.listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener must not be null");
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout must be between PT0.1S and PT1H, got PT0.01S");
    }

    @Test
    void theWrappersCheckTheirAttributesAndTimeout() {
        assertThatThrownBy(() -> FencedDynamoDbAsync.builder(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client must not be null");
        assertThatThrownBy(() -> FencedDynamoDbAsync.builder(ASYNC).tokenAttribute("bad\nname"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tokenAttribute must be 1 to 255 bytes without control characters");
        assertThatThrownBy(() -> FencedDynamoDbAsync.builder(ASYNC).requestTimeout(Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout must be between PT0.1S and PT1H, got PT2H");
        assertThatThrownBy(() -> FencedDynamoDbAsync.builder(ASYNC).policy(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy must not be null");
        assertThatThrownBy(() -> FencedDynamoDbAsync.builder(ASYNC).listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener must not be null");
    }

    @Test
    void theWrappersRefuseOneAttributeForTokenAndTombstoneAndTheReservedOnes() {
        assertThatThrownBy(() -> FencedDynamoDbAsync.builder(ASYNC).tokenAttribute("mark").tombstoneAttribute("mark")
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tokenAttribute and tombstoneAttribute must differ, both are 'mark'");
        assertThatThrownBy(() -> FencedDynamoDb.builder(CLIENT).tombstoneAttribute("fencing_write").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tombstoneAttribute 'fencing_write' is written by every fenced write")
                .hasMessageContaining("[fencing_write, fencing_resource]");
    }
}
