package dev.fencing.aws.internal;

import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import software.amazon.awssdk.awscore.AwsRequest;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * A bound on every request the toolkit sends through a caller's AWS client: each request gets
 * {@code apiCallTimeout} and {@code apiCallAttemptTimeout} of the bound, or the shorter one the
 * client or the request already has (a request's override wins over the client's in the SDK, so the
 * client's shorter setting is carried onto the request). A request that runs out of time fails with
 * an {@link ApiCallTimeoutException} naming the server, the operation, what it was about and the
 * bound. The stores' client wrappers ({@code BoundedDynamoDb}, {@code BoundedS3}) send every
 * operation through {@link #call} or {@link #callAsync}.
 */
public final class RequestBounds {

    /** The bound unless configured otherwise. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final Duration callTimeout;
    private final Duration attemptTimeout;
    private final Duration requested;
    private final String server;
    private final String slowServer;

    /**
     * @param server the server as messages name it, such as {@code "S3 at http://…"}
     * @param client the client's own override configuration, whose shorter timeouts are kept
     * @param requestTimeout the bound, checked by {@link #check}
     * @param slowServer what a timeout most likely means, ending the message
     */
    public RequestBounds(String server, ClientOverrideConfiguration client, Duration requestTimeout, String slowServer) {
        this.requested = check(requestTimeout);
        this.callTimeout = shorter(client.apiCallTimeout(), requestTimeout);
        this.attemptTimeout = shorter(client.apiCallAttemptTimeout(), callTimeout);
        this.server = server;
        this.slowServer = slowServer;
    }

    /** Checks a request timeout: 100 ms to 1 h, naming {@code requestTimeout}. */
    public static Duration check(Duration requestTimeout) {
        return Checks.requireBetween("requestTimeout", requestTimeout, Duration.ofMillis(100), Duration.ofHours(1));
    }

    private static Duration shorter(Optional<Duration> configured, Duration bound) {
        return configured.filter(own -> own.compareTo(bound) < 0).orElse(bound);
    }

    /** {@code request} with the bound (or its own shorter timeouts) as its override configuration. */
    @SuppressWarnings("unchecked")
    public <R extends AwsRequest> R bounded(R request) {
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
    Throwable named(Throwable failure, AwsRequest request, String about) {
        Throwable cause = AwsReplies.unwrap(failure);
        if (!(cause instanceof ApiCallTimeoutException || cause instanceof ApiCallAttemptTimeoutException)) {
            return failure;
        }
        Duration bound = request.overrideConfiguration().flatMap(AwsRequestOverrideConfiguration::apiCallTimeout)
                .orElse(callTimeout);
        String setting = bound.equals(requested) ? "requestTimeout" : "the client's or request's apiCallTimeout";
        return ApiCallTimeoutException.builder().cause(cause).message(server + " did not answer "
                + request.getClass().getSimpleName().replace("Request", "") + " " + about + " within " + setting
                + " " + bound.toMillis() + " ms (" + slowServer + ")").build();
    }

    /**
     * Sends {@code request}, bounded, through {@code send}; a timeout is thrown with the message of
     * this bound.
     *
     * @param about what the request is about, for the message: {@code "on table 'orders'"}
     */
    public <R extends AwsRequest, T> T call(R request, String about, Function<R, T> send) {
        R bounded = bounded(request);
        try {
            return send.apply(bounded);
        } catch (SdkClientException e) {
            Throwable named = named(e, bounded, about);
            throw named instanceof SdkClientException client ? client : e;
        }
    }

    /** As {@link #call}, for an asynchronous client: the future fails with the named timeout. */
    public <R extends AwsRequest, T> CompletableFuture<T> callAsync(R request, String about,
            Function<R, CompletableFuture<T>> send) {
        R bounded = bounded(request);
        CompletableFuture<T> result = new CompletableFuture<>();
        send.apply(bounded).whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(named(failure, bounded, about));
            }
        });
        return result;
    }
}
