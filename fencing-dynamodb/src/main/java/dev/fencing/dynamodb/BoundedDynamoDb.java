package dev.fencing.dynamodb;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.aws.internal.RequestBounds;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbServiceClientConfiguration;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The caller's DynamoDB client with a bound on every request the toolkit sends through it: each
 * request gets {@code apiCallTimeout} and {@code apiCallAttemptTimeout} of the bound, or the shorter
 * one the client or the request already has (a request's override wins over the client's in the
 * SDK, so the client's shorter setting is carried onto the request). A request that runs out of
 * time fails with an {@link ApiCallTimeoutException} naming the endpoint, the operation, the table
 * and the bound. Only the operations the toolkit sends are implemented; the rest are the SDK's
 * unsupported defaults, never reached.
 */
final class BoundedDynamoDb {

    static final Duration DEFAULT_REQUEST_TIMEOUT = RequestBounds.DEFAULT_REQUEST_TIMEOUT;

    private BoundedDynamoDb() {}

    private static RequestBounds bounds(DynamoDbServiceClientConfiguration client, Duration requestTimeout) {
        return new RequestBounds(AwsReplies.server("DynamoDB", client), client.overrideConfiguration(), requestTimeout,
                "a server that accepts connections but never answers, or one slower than the bound");
    }

    /** Checks a request timeout: 100 ms to 1 h. */
    static Duration check(Duration requestTimeout) {
        return RequestBounds.check(requestTimeout);
    }

    /** {@code client} with every request the toolkit sends bounded by {@code requestTimeout}. */
    static DynamoDbClient wrap(DynamoDbClient client, Duration requestTimeout) {
        DynamoDbClient callers = client instanceof Sync bounded ? bounded.client : client;
        return new Sync(callers, bounds(callers.serviceClientConfiguration(), requestTimeout));
    }

    /** {@code client} with every request the toolkit sends bounded by {@code requestTimeout}. */
    static DynamoDbAsyncClient wrap(DynamoDbAsyncClient client, Duration requestTimeout) {
        return new Async(client, bounds(client.serviceClientConfiguration(), requestTimeout));
    }

    private static String table(String name) {
        return "on table '" + name + "'";
    }

    private static String tables(Collection<String> names) {
        return "on tables " + names;
    }

    /** The synchronous client, bounded. */
    private static final class Sync implements DynamoDbClient {
        private final DynamoDbClient client;
        private final RequestBounds bound;

        Sync(DynamoDbClient client, RequestBounds bound) {
            this.client = client;
            this.bound = bound;
        }

        @Override
        public PutItemResponse putItem(PutItemRequest request) {
            return bound.call(request, table(request.tableName()), client::putItem);
        }

        @Override
        public UpdateItemResponse updateItem(UpdateItemRequest request) {
            return bound.call(request, table(request.tableName()), client::updateItem);
        }

        @Override
        public GetItemResponse getItem(GetItemRequest request) {
            return bound.call(request, table(request.tableName()), client::getItem);
        }

        @Override
        public BatchGetItemResponse batchGetItem(BatchGetItemRequest request) {
            return bound.call(request, tables(request.requestItems().keySet()), client::batchGetItem);
        }

        @Override
        public TransactGetItemsResponse transactGetItems(TransactGetItemsRequest request) {
            return bound.call(request, "on a transaction", client::transactGetItems);
        }

        @Override
        public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
            return bound.call(request, "on a transaction", client::transactWriteItems);
        }

        @Override
        public DescribeTableResponse describeTable(DescribeTableRequest request) {
            return bound.call(request, table(request.tableName()), client::describeTable);
        }

        @Override
        public DynamoDbServiceClientConfiguration serviceClientConfiguration() {
            return client.serviceClientConfiguration();
        }

        @Override
        public String serviceName() {
            return client.serviceName();
        }

        @Override
        public void close() {
            // the caller owns the client
        }
    }

    /** The asynchronous client, bounded. */
    private static final class Async implements DynamoDbAsyncClient {
        private final DynamoDbAsyncClient client;
        private final RequestBounds bound;

        Async(DynamoDbAsyncClient client, RequestBounds bound) {
            this.client = client;
            this.bound = bound;
        }

        @Override
        public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
            return bound.callAsync(request, table(request.tableName()), client::putItem);
        }

        @Override
        public CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
            return bound.callAsync(request, table(request.tableName()), client::updateItem);
        }

        @Override
        public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
            return bound.callAsync(request, table(request.tableName()), client::getItem);
        }

        @Override
        public CompletableFuture<BatchGetItemResponse> batchGetItem(BatchGetItemRequest request) {
            return bound.callAsync(request, tables(request.requestItems().keySet()), client::batchGetItem);
        }

        @Override
        public CompletableFuture<TransactGetItemsResponse> transactGetItems(TransactGetItemsRequest request) {
            return bound.callAsync(request, "on a transaction", client::transactGetItems);
        }

        @Override
        public CompletableFuture<TransactWriteItemsResponse> transactWriteItems(TransactWriteItemsRequest request) {
            return bound.callAsync(request, "on a transaction", client::transactWriteItems);
        }

        @Override
        public CompletableFuture<DescribeTableResponse> describeTable(DescribeTableRequest request) {
            return bound.callAsync(request, table(request.tableName()), client::describeTable);
        }

        @Override
        public DynamoDbServiceClientConfiguration serviceClientConfiguration() {
            return client.serviceClientConfiguration();
        }

        @Override
        public String serviceName() {
            return client.serviceName();
        }

        @Override
        public void close() {
            // the caller owns the client
        }
    }
}
