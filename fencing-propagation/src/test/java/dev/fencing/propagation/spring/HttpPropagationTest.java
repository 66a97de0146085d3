package dev.fencing.propagation.spring;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.Policy;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import dev.fencing.testkit.LostReplies;
import dev.fencing.testkit.PropagationContract;
import dev.fencing.testkit.ReplyDroppingProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The propagation contract over HTTP: a Spring MVC service on embedded Tomcat (the filter, the
 * argument resolver and the problem advice) called with {@code RestClient} and
 * {@link FencingTokenInterceptor}. Lost replies are lost by the testkit's proxy in front of Tomcat.
 */
class HttpPropagationTest extends PropagationContract {

    private static final String BASE = ItemsApp.baseUrl();
    private static final HttpClient RAW = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Override
    protected Downstream downstream(Policy policy) {
        return new Downstream() {
            @Override
            public FencedStore client() {
                return new HttpItemsClient(BASE, policy);
            }

            @Override
            public Answer rawWrite(@Nullable String tokenHeader, String key, String value) {
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(BASE + "/" + policy + "/fenced/items?key="
                        + URLEncoder.encode(key, StandardCharsets.UTF_8)))
                        .header("Content-Type", "text/plain; charset=UTF-8")
                        .PUT(HttpRequest.BodyPublishers.ofString(value));
                if (tokenHeader != null) {
                    request.header(TokenHeader.HTTP_HEADER, tokenHeader);
                }
                HttpResponse<String> response = send(request.build());
                String refusal = response.headers().firstValue(TokenRefusal.HTTP_HEADER).orElse("");
                return switch (response.statusCode()) {
                    case 204 -> Answer.ACCEPTED;
                    case 400 -> Answer.MALFORMED;
                    case 428 -> Answer.MISSING;
                    case 409 -> refusal.startsWith("stale") ? Answer.STALE : Answer.FOREIGN;
                    default -> throw new AssertionError("unexpected answer " + response.statusCode() + ": " + response.body());
                };
            }

            @Override
            public Writer wrappingWriter() {
                return (token, key, value) -> put(token, "/MONOTONIC/wrapped/items", key, value);
            }

            @Override
            public Writer declaredWriter() {
                return (token, key, value) -> put(token, "/declared/items", key, value);
            }

            @Override
            @SuppressWarnings("try") // the scope is used by the interceptor, not the block
            public Optional<FencingToken> echoWithin(@Nullable Lease lease) {
                var rest = org.springframework.web.client.RestClient.builder().baseUrl(BASE)
                        .requestInterceptor(FencingTokenInterceptor.fromContext()).build();
                String seen;
                if (lease == null) {
                    seen = rest.get().uri("/echo").retrieve().body(String.class);
                } else {
                    try (FencingContext.Scope scope = FencingContext.bind(lease)) {
                        seen = rest.get().uri("/echo").retrieve().body(String.class);
                    }
                }
                return "none".equals(seen) ? Optional.empty() : Optional.of(TokenHeader.parse(seen));
            }
        };
    }

    @Override
    protected @Nullable LostReplies lostReplies() {
        ReplyDroppingProxy proxy = ReplyDroppingProxy.inFrontOf(BASE);
        return LostReplies.of(policy -> new HttpItemsClient(proxy.httpEndpoint(), policy),
                window -> proxy.dropReplyTo(HttpItemsClient.WRITE_MARKER + ":", window), proxy::dropped, false, proxy::close);
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return RAW.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void put(FencingToken token, String path, String key, String value) {
        org.springframework.web.client.RestClient.builder().baseUrl(BASE)
                .requestInterceptor(FencingTokenInterceptor.of(token)).build().put()
                .uri(b -> b.path(path).queryParam("key", "{key}").build(key))
                .contentType(org.springframework.http.MediaType.TEXT_PLAIN).body(value).retrieve().toBodilessEntity();
    }
}
