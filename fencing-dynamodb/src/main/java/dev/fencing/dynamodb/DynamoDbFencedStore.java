package dev.fencing.dynamodb;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.StoreBuilder;
import java.time.Duration;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

/**
 * The common {@link FencedStore} on a DynamoDB table with a string partition key, built on
 * {@link FencedDynamoDb}: {@link #builder} or {@link #create} make it. Item layout: the key, {@code v} (the value; absent in a tombstone),
 * {@code version} (a counter that never restarts, tombstones included) and {@code fencing_token}
 * (the mark). Every write is one conditional {@code UpdateItem}; a read-modify-write adds
 * {@code version = :read} (or {@code attribute_not_exists(key)}) to the condition. A write whose
 * reply was lost is never retried blindly: it answers "written" if the item carries its write id
 * ({@link FencedDynamoDb}), else throws {@link WriteOutcomeUnknownException}. Thread-safe.
 */
public final class DynamoDbFencedStore {

    /** How long {@link #createTable} waits for the table to become {@code ACTIVE}. */
    public static final Duration TABLE_WAIT = Duration.ofMinutes(5);

    /** The string partition key attribute unless configured otherwise. */
    public static final String DEFAULT_KEY_ATTRIBUTE = "pk";

    private DynamoDbFencedStore() {}

    /** A store on {@code table} keyed by string attribute {@code pk}, {@link Policy#MONOTONIC}, telling no listener. */
    public static FencedStore create(DynamoDbClient client, String table) {
        return builder(client, table).build();
    }

    /**
     * A builder for a store on {@code table} through {@code client}: key attribute
     * {@value #DEFAULT_KEY_ATTRIBUTE}, {@link Policy#MONOTONIC}, requests bounded by 10 s and no
     * listener unless set.
     *
     * @throws IllegalArgumentException if {@code client} is null or {@code table} is blank, longer
     *     than 256 characters or holds control characters, naming it
     */
    public static Builder builder(DynamoDbClient client, String table) {
        return new Builder(Checks.requireNonNull("client", client), Checks.requireName("table", table));
    }

    /**
     * Creates {@code table} (on-demand billing, string partition key {@code keyAttribute}) unless it
     * exists, and returns once it is {@code ACTIVE} — also when another client created it a moment
     * before and it is still {@code CREATING}.
     *
     * <p>The status is polled after 200 ms, then twice as long each time up to 2 s between polls
     * (the SDK's default waiter polls every 20 s, so a table ready in half a second cost 20 s).
     *
     * @throws software.amazon.awssdk.core.exception.SdkClientException if the table is not
     *     {@code ACTIVE} within {@link #TABLE_WAIT}
     */
    public static void createTable(DynamoDbClient client, String table, String keyAttribute) {
        try {
            client.createTable(request -> request.tableName(table)
                    .keySchema(KeySchemaElement.builder().attributeName(keyAttribute).keyType(KeyType.HASH).build())
                    .attributeDefinitions(AttributeDefinition.builder().attributeName(keyAttribute)
                            .attributeType(ScalarAttributeType.S).build())
                    .billingMode(BillingMode.PAY_PER_REQUEST));
        } catch (ResourceInUseException exists) {
            // already there, or being created by another client: wait for it all the same
        }
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder().client(client).overrideConfiguration(config -> config
                .backoffStrategyV2(BackoffStrategy.exponentialDelayWithoutJitter(Duration.ofMillis(200),
                        Duration.ofSeconds(2)))
                .maxAttempts(Integer.MAX_VALUE)
                .waitTimeout(TABLE_WAIT)).build()) {
            waiter.waitUntilTableExists(request -> request.tableName(table));
        }
    }

    /** Configures a {@link DynamoDbFencedStore}; every setting but the client and the table is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        private final DynamoDbClient client;
        private final String table;
        private String keyAttribute = DEFAULT_KEY_ATTRIBUTE;
        private Duration requestTimeout = BoundedDynamoDb.DEFAULT_REQUEST_TIMEOUT;

        private Builder(DynamoDbClient client, String table) {
            this.client = client;
            this.table = table;
        }

        /**
         * The table's string partition key attribute; default {@value #DEFAULT_KEY_ATTRIBUTE}. 1 to 255
         * bytes without control characters, and none of the store's own attributes ({@code v},
         * {@code version}, {@code fencing_*}).
         */
        public Builder keyAttribute(String keyAttribute) {
            Attributes.requireName("keyAttribute", keyAttribute);
            if (keyAttribute.equals(DynamoDbStorageAccessor.VALUE)
                    || keyAttribute.equals(DynamoDbStorageAccessor.VERSION) || keyAttribute.startsWith("fencing_")) {
                throw new IllegalArgumentException("keyAttribute '" + keyAttribute + "' is one of the store's own"
                        + " attributes (v, version, fencing_*); name the table's partition key");
            }
            this.keyAttribute = keyAttribute;
            return this;
        }

        /**
         * How long each request of the store may take, 100 ms to 1 h; default 10 s (see
         * {@link FencedDynamoDb.Builder#requestTimeout}).
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = BoundedDynamoDb.check(requestTimeout);
            return this;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The store. Sends no request: the table is used as it is (see {@link DynamoDbFencedStore#createTable}). */
        @Override
        public FencedStore build() {
            DynamoDbClient bounded = BoundedDynamoDb.wrap(client, requestTimeout);
            FencedDynamoDb fenced = FencedDynamoDb.builder(bounded).policy(policy).requestTimeout(requestTimeout).build();
            return storeOver(new DynamoDbStorageAccessor(bounded, fenced, table, keyAttribute,
                    AwsReplies.server("DynamoDB", client.serviceClientConfiguration())));
        }
    }
}
