package dev.fencing.cli.backends;

import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.http.FencedHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * A client of {@link FencedService}, as a caller in a critical section would write it: the token
 * is the one bound by {@link FencingContext} on the calling thread, attached by
 * {@link FencedHttpClient}; a refusal comes back as the store's own exception.
 */
public final class FencedServiceClient {

    private final String url;
    private final FencedHttpClient http;

    /** A client of the service at {@code url}, with its own connections. */
    public FencedServiceClient(String url) {
        this.url = url;
        this.http = FencedHttpClient.of(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Backends.CONNECT_TIMEOUT).build());
    }

    /**
     * {@code PUT path?key=} with {@code value}, carrying the token in scope.
     *
     * @throws dev.fencing.core.StaleTokenException if the service refused the token
     * @throws WriteOutcomeUnknownException if the reply was lost: the service may have written
     */
    public void put(String path, String key, String value) {
        HttpResponse<String> response = send(key, HttpRequest.newBuilder(uri(path, key))
                .header("Content-Type", "text/plain; charset=UTF-8").PUT(HttpRequest.BodyPublishers.ofString(value)));
        if (response.statusCode() != 204) {
            throw new IllegalStateException("PUT " + path + " answered " + response.statusCode() + ": " + response.body());
        }
    }

    /** {@code GET path?key=}: the value and its token, or empty. */
    public Optional<StoredValue> get(String path, String key) {
        HttpResponse<String> response = send(key, HttpRequest.newBuilder(uri(path, key)).GET());
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        long token = Long.parseLong(response.headers().firstValue("Item-Token").orElse("0"));
        return Optional.of(new StoredValue(key, response.body(), token));
    }

    private URI uri(String path, String key) {
        return URI.create(url + path + "?key=" + URLEncoder.encode(key, StandardCharsets.UTF_8));
    }

    private HttpResponse<String> send(String key, HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw WriteOutcomeUnknownException.of(key, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw WriteOutcomeUnknownException.of(key, e);
        }
    }
}
