package dev.fencing.propagation.grpc;

import static dev.fencing.propagation.grpc.ItemsServer.fields;
import static dev.fencing.propagation.grpc.ItemsServer.message;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.propagation.CasBody;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FencedStore} that is a client of {@link ItemsServer}: the way a team calls another
 * team's service with a plain channel and {@link FencingClientInterceptor}, writes naming their
 * token in {@link FencingClientInterceptor#TOKEN_OPTION} and wrapped in {@link FencingGrpc#call}.
 * Each instance has its own channel, so its own connection. A write whose call ends
 * {@code UNAVAILABLE}, {@code DEADLINE_EXCEEDED}, {@code CANCELLED} or {@code UNKNOWN} may have
 * been carried out: it is reported as {@link WriteOutcomeUnknownException}, never re-sent.
 */
final class GrpcItemsClient implements FencedStore, AutoCloseable {

    private static final int CAS_ATTEMPTS = 64;
    private static final Set<Status.Code> UNCLEAR = Set.of(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED,
            Status.Code.CANCELLED, Status.Code.UNKNOWN);

    private final ManagedChannel managed;
    private final Channel channel;
    private final Policy policy;

    GrpcItemsClient(int port, Policy policy) {
        this.policy = policy;
        this.managed = Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create()).build();
        this.channel = ClientInterceptors.intercept(managed, FencingClientInterceptor.fromContext());
    }

    @Override
    public void write(FencingToken token, String key, String value) {
        check(token, key);
        Checks.requireNonNull("value", value);
        unclear(key, () -> call(ItemsServer.WRITE, token, message(policy.name(), key, value)));
    }

    @Override
    public Optional<StoredValue> read(String key) {
        Checks.requireName("key", key);
        List<String> found = fields(call(ItemsServer.READ, null, message(policy.name(), key)));
        return found.isEmpty() ? Optional.empty()
                : Optional.of(new StoredValue(key, found.get(0), Long.parseLong(found.get(1))));
    }

    @Override
    public StoredValue update(FencingToken token, String key, Function<Optional<String>, String> change) {
        check(token, key);
        Checks.requireNonNull("change", change);
        for (int attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
            List<String> peeked = fields(call(ItemsServer.PEEK, token, message(policy.name(), key)));
            Optional<String> current = peeked.isEmpty() ? Optional.empty() : Optional.of(peeked.get(0));
            String next = change.apply(current);
            if (next == null) {
                throw new IllegalArgumentException("the change function of update('" + key + "') returned null");
            }
            String body = new CasBody(current, next).encode();
            Optional<Long> written = unclear(key, () -> {
                try {
                    return Optional.of(Long.parseLong(call(ItemsServer.CAS, token, message(policy.name(), key, body))));
                } catch (StatusRuntimeException e) {
                    if (e.getStatus().getCode() == Status.Code.ABORTED) {
                        return Optional.empty();
                    }
                    throw e;
                }
            });
            if (written.isPresent()) {
                return new StoredValue(key, next, written.get());
            }
        }
        throw ConcurrentUpdateException.gaveUp(key, CAS_ATTEMPTS);
    }

    @Override
    public void delete(FencingToken token, String key) {
        check(token, key);
        unclear(key, () -> call(ItemsServer.DELETE, token, message(policy.name(), key)));
    }

    @Override
    public OptionalLong highWaterMark(String key) {
        Checks.requireName("key", key);
        List<String> mark = fields(call(ItemsServer.MARK, null, message(policy.name(), key)));
        return mark.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(mark.get(0)));
    }

    @Override
    public Policy policy() {
        return policy;
    }

    @Override
    public void close() {
        managed.shutdownNow();
        try {
            if (!managed.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the channel did not terminate in 10 s: " + managed);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while closing the channel", e);
        }
    }

    /** Calls {@code method}, with {@code token} when not null; a refusal is thrown as the store's exception. */
    private String call(MethodDescriptor<String, String> method, @Nullable FencingToken token, String request) {
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
        CallOptions sent = token == null ? options : options.withOption(FencingClientInterceptor.TOKEN_OPTION, token);
        return FencingGrpc.call(() -> ClientCalls.blockingUnaryCall(channel, method, sent, request));
    }

    private static void check(FencingToken token, String key) {
        Checks.requireNonNull("token", token);
        Checks.requireName("key", key);
    }

    /** A write's call that ended without an answer: the service may have acted, so the outcome is unknown. */
    private static <T> T unclear(String key, Supplier<T> call) {
        try {
            return call.get();
        } catch (StatusRuntimeException e) {
            if (UNCLEAR.contains(e.getStatus().getCode())) {
                throw WriteOutcomeUnknownException.of(key, e);
            }
            throw e;
        }
    }
}
