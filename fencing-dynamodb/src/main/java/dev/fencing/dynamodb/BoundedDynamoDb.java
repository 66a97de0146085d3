package dev.fencing.dynamodb;

import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import software.amazon.awssdk.awscore.AwsRequest;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
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

    static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final Duration callTimeout;
    private final Duration attemptTimeout;
    private final Duration requested;
    private final String server;

    private BoundedDynamoDb(DynamoDbServiceClientConfiguration client, Duration requestTimeout) {
        ClientOverrideConfiguration own = client.overrideConfiguration();
        this.requested = requestTimeout;
        this.callTimeout = shorter(own.apiCallTimeout(), requestTimeout);
        this.attemptTimeout = shorter(own.apiCallAttemptTimeout(), callTimeout);
        this.server = "DynamoDB at " + client.endpointOverride().map(Object::toString)
                .orElseGet(() -> "region " + client.region());
    }

    /** Checks a request timeout: 100 ms to 1 h. */
    static Duration check(Duration requestTimeout) {
        return Checks.requireBetween("requestTimeout", requestTimeout, Duration.ofMillis(100), Duration.ofHours(1));
    }

    /** {@code client} with every request the toolkit sends bounded by {@code requestTimeout}. */
    static DynamoDbClient wrap(DynamoDbClient client, Duration requestTimeout) {
        DynamoDbClient callers = client instanceof Sync bounded ? bounded.client : client;
        return new Sync(callers, new BoundedDynamoDb(callers.serviceClientConfiguration(), requestTimeout));
    }

    /** {@code client} with every request the toolkit sends bounded by {@code requestTimeout}. */
    static DynamoDbAsyncClient wrap(DynamoDbAsyncClient client, Duration requestTimeout) {
        return new Async(client, new BoundedDynamoDb(client.serviceClientConfiguration(), requestTimeout));
    }

    private static Duration shorter(Optional<Duration> configured, Duration bound) {
        return configured.filter(own -> own.compareTo(bound) < 0).orElse(bound);
    }

    @SuppressWarnings("unchecked")
    private <R extends AwsRequest> R bounded(R request) {
        Optional<AwsRequestOverrideConfiguration> callers = request.overrideConfiguration();
        Duration call = shorter(callers.flatMap(AwsRequestOverrideConfiguration::apiCallTimeout), callTimeout);
        Duration attempt = shorter(callers.flatMap(AwsRequestOverrideConfiguration::apiCallAttemptTimeout),
                attemptTimeout);
        AwsRequestOverrideConfiguration override = callers.map(AwsRequestOverrideConfiguration::toBuilder)
                .orElseGet(AwsRequestOverrideConfiguration::builder).apiCallTimeout(call)
                .apiCallAttemptTimeout(attempt.compareTo(call) < 0 ? attempt : call).build();
        return (R) request.toBuilder().overrideConfiguration(override).build();
    }

    /** A timeout of the SDK as the one message a caller should see; anything else unchanged. */
    private Throwable named(Throwable failure, AwsRequest request, String tables) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (!(cause instanceof ApiCallTimeoutException || cause instanceof ApiCallAttemptTimeoutException)) {
            return failure;
        }
        Duration bound = request.overrideConfiguration().flatMap(AwsRequestOverrideConfiguration::apiCallTimeout)
                .orElse(callTimeout);
        String setting = bound.equals(requested) ? "requestTimeout" : "the client's or request's apiCallTimeout";
        return ApiCallTimeoutException.builder().cause(cause).message(server + " did not answer "
                + request.getClass().getSimpleName().replace("Request", "") + " on " + tables + " within " + setting
                + " " + bound.toMillis() + " ms (a server that accepts connections but never answers, or one slower"
                + " than the bound)").build();
    }

    private static String table(String name) {
        return "table '" + name + "'";
    }

    private static String tables(Collection<String> names) {
        return "tables " + names;
    }

    private <R extends AwsRequest, T> T call(R request, String tables, Function<R, T> send) {
        R bounded = bounded(request);
        try {
            return send.apply(bounded);
        } catch (SdkClientException e) {
            Throwable named = named(e, bounded, tables);
            throw named instanceof SdkClientException client ? client : e;
        }
    }

    private <R extends AwsRequest, T> CompletableFuture<T> callAsync(R request, String tables,
            Function<R, CompletableFuture<T>> send) {
        R bounded = bounded(request);
        CompletableFuture<T> result = new CompletableFuture<>();
        send.apply(bounded).whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(named(failure, bounded, tables));
            }
        });
        return result;
    }

    /** The synchronous client, bounded. */
    private static final class Sync implements DynamoDbClient {
        private final DynamoDbClient client;
        private final BoundedDynamoDb bound;

        Sync(DynamoDbClient client, BoundedDynamoDb bound) {
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
            return bound.call(request, "a transaction", client::transactGetItems);
        }

        @Override
        public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
            return bound.call(request, "a transaction", client::transactWriteItems);
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
        private final BoundedDynamoDb bound;

        Async(DynamoDbAsyncClient client, BoundedDynamoDb bound) {
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
            return bound.callAsync(request, "a transaction", client::transactGetItems);
        }

        @Override
        public CompletableFuture<TransactWriteItemsResponse> transactWriteItems(TransactWriteItemsRequest request) {
            return bound.callAsync(request, "a transaction", client::transactWriteItems);
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
