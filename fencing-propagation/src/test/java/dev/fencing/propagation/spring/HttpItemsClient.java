package dev.fencing.propagation.spring;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.propagation.CasBody;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * A {@link FencedStore} that is a client of {@link ItemsApp}: the way a team calls another team's
 * service with {@code RestClient} and {@link FencingTokenInterceptor}. Each instance has its own
 * JDK HTTP client, so its own connections. A write whose reply is lost is reported as
 * {@link WriteOutcomeUnknownException}, never re-sent.
 */
final class HttpItemsClient implements FencedStore {

    private static final MediaType TEXT = new MediaType("text", "plain", StandardCharsets.UTF_8);
    private static final int CAS_ATTEMPTS = 64;

    /** A header only writes carry, so the contract's proxy can lose a write's reply and no other. */
    static final String WRITE_MARKER = "Item-Write";

    private final RestClient rest;
    private final Policy policy;

    HttpItemsClient(String baseUrl, Policy policy) {
        this.policy = policy;
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        this.rest = RestClient.builder().baseUrl(baseUrl + "/" + policy)
                .requestFactory(new JdkClientHttpRequestFactory(http))
                .requestInterceptor(FencingTokenInterceptor.fromContext()).build();
    }

    @Override
    public void write(FencingToken token, String key, String value) {
        check(token, key);
        Checks.requireNonNull("value", value);
        unclear(key, () -> rest.put().uri(b -> b.path("/fenced/items").queryParam("key", "{key}").build(key))
                .attribute(FencingTokenInterceptor.TOKEN_ATTRIBUTE, token).header(WRITE_MARKER, "1").contentType(TEXT).body(value).retrieve()
                .toBodilessEntity());
    }

    @Override
    public Optional<StoredValue> read(String key) {
        Checks.requireName("key", key);
        return rest.get().uri(b -> b.path("/read/items").queryParam("key", "{key}").build(key))
                .exchange((request, response) -> {
                    if (response.getStatusCode().value() == 404) {
                        return Optional.empty();
                    }
                    String body = new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
                    long token = Long.parseLong(response.getHeaders().getFirst("Item-Token"));
                    return Optional.of(new StoredValue(key, body, token));
                });
    }

    @Override
    public StoredValue update(FencingToken token, String key, Function<Optional<String>, String> change) {
        check(token, key);
        Checks.requireNonNull("change", change);
        for (int attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
            Optional<String> current = peek(token, key);
            String next = change.apply(current);
            if (next == null) {
                throw new IllegalArgumentException("the change function of update('" + key + "') returned null");
            }
            String body = new CasBody(current, next).encode();
            Optional<Long> written = unclear(key, () -> rest.post()
                    .uri(b -> b.path("/fenced/cas").queryParam("key", "{key}").build(key))
                    .attribute(FencingTokenInterceptor.TOKEN_ATTRIBUTE, token).header(WRITE_MARKER, "1").contentType(TEXT).body(body)
                    .exchange((request, response) -> {
                        if (response.getStatusCode().value() == 412) {
                            return Optional.<Long>empty();
                        }
                        if (!response.getStatusCode().is2xxSuccessful()) {
                            throw new IllegalStateException("cas answered " + response.getStatusCode());
                        }
                        return Optional.of(Long.parseLong(new String(response.getBody().readAllBytes(),
                                StandardCharsets.UTF_8)));
                    }));
            if (written.isPresent()) {
                return new StoredValue(key, next, written.get());
            }
        }
        throw ConcurrentUpdateException.gaveUp(key, CAS_ATTEMPTS);
    }

    /** The value under {@code key}, read by the service only after it checked {@code token}. */
    private Optional<String> peek(FencingToken token, String key) {
        return rest.post().uri(b -> b.path("/fenced/peek").queryParam("key", "{key}").build(key))
                .attribute(FencingTokenInterceptor.TOKEN_ATTRIBUTE, token).exchange((request, response) -> {
                    if (response.getStatusCode().value() == 404) {
                        return Optional.<String>empty();
                    }
                    if (!response.getStatusCode().is2xxSuccessful()) {
                        throw new IllegalStateException("peek answered " + response.getStatusCode());
                    }
                    return Optional.of(new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8));
                });
    }

    @Override
    public void delete(FencingToken token, String key) {
        check(token, key);
        unclear(key, () -> rest.delete().uri(b -> b.path("/fenced/items").queryParam("key", "{key}").build(key))
                .attribute(FencingTokenInterceptor.TOKEN_ATTRIBUTE, token).header(WRITE_MARKER, "1").retrieve()
                .toBodilessEntity());
    }

    @Override
    public OptionalLong highWaterMark(String key) {
        Checks.requireName("key", key);
        return rest.get().uri(b -> b.path("/read/marks").queryParam("key", "{key}").build(key))
                .exchange((request, response) -> response.getStatusCode().value() == 404 ? OptionalLong.empty()
                        : OptionalLong.of(Long.parseLong(new String(response.getBody().readAllBytes(),
                                StandardCharsets.UTF_8))));
    }

    @Override
    public Policy policy() {
        return policy;
    }

    private static void check(FencingToken token, String key) {
        Checks.requireNonNull("token", token);
        Checks.requireName("key", key);
    }

    /** A write's I/O failure: the service may have acted, so the outcome is unknown. */
    private static <T> T unclear(String key, Supplier<T> call) {
        try {
            return call.get();
        } catch (ResourceAccessException e) {
            throw WriteOutcomeUnknownException.of(key, e.getCause() == null ? e : e.getCause());
        }
    }
}
