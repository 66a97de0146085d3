package dev.fencing.propagation.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.TokenGate;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import dev.fencing.propagation.http.FencedHttpClient;
import dev.fencing.testkit.InMemoryLockProvider;
import dev.fencing.testkit.RecordingListener;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The clients other than the contract's RestClient — WebClient, the JDK HttpClient wrapper, a
 * fixed-token interceptor — and the gate in front of a handler, against the same Spring MVC service.
 */
class ClientsTest {

    private static final String BASE = ItemsApp.baseUrl();
    private final String lock = "clients-" + UUID.randomUUID();

    @Test
    @SuppressWarnings("try") // the scope is read by the filter, not the block
    void webClientSendsTheTokenInScopeAndGetsTheStoresRefusalBack() throws Exception {
        WebClient web = WebClient.builder().baseUrl(BASE).clientConnector(new JdkClientHttpConnector())
                .filter(FencingExchangeFilter.fromContext()).build();
        String key = lock + "-web";
        try (FencingContext.Scope scope = FencingContext.bind(FencingToken.of(lock, 5))) {
            web.put().uri(b -> b.path("/MONOTONIC/fenced/items").queryParam("key", key).build()).bodyValue("v5")
                    .retrieve().toBodilessEntity().block(Duration.ofSeconds(10));
            assertThat(web.get().uri("/echo").retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10)))
                    .isEqualTo(TokenHeader.format(FencingToken.of(lock, 5)));
        }
        assertThatThrownBy(() -> web.put().uri(b -> b.path("/MONOTONIC/fenced/items").queryParam("key", key).build())
                .attribute(FencingExchangeFilter.TOKEN_ATTRIBUTE, FencingToken.of(lock, 4)).bodyValue("v4").retrieve()
                .toBodilessEntity().block(Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.highWaterMark()).isEqualTo(5);
                    assertThat(e.presented()).isEqualTo(FencingToken.of(lock, 4));
                    assertThat(e.key()).isEqualTo(key);
                });
        assertThat(new HttpItemsClient(BASE, Policy.MONOTONIC).read(key).orElseThrow().value()).isEqualTo("v5");
    }

    @Test
    @SuppressWarnings("try")
    void theJdkClientAttachesTheLeaseInScopeOrTheGivenTokenAndThrowsTheRefusal() throws Exception {
        FencedHttpClient http = FencedHttpClient.of(HttpClient.newHttpClient());
        HttpRequest echo = HttpRequest.newBuilder(URI.create(BASE + "/echo")).build();
        assertThat(http.send(echo, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("none");
        try (InMemoryLockProvider locks = InMemoryLockProvider.create();
                Lease lease = locks.acquire(lock, LeaseOptions.ofTtl(Duration.ofSeconds(30)));
                FencingContext.Scope scope = FencingContext.bind(lease)) {
            assertThat(http.send(echo, HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo(TokenHeader.format(lease.token()));
            FencingToken explicit = FencingToken.of("other", 9);
            assertThat(http.send(explicit, echo, HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo(TokenHeader.format(explicit));
        }
        String key = lock + "-jdk";
        HttpRequest put = HttpRequest.newBuilder(URI.create(BASE + "/STRICT/fenced/items?key=" + key))
                .header("Content-Type", "text/plain; charset=UTF-8").PUT(HttpRequest.BodyPublishers.ofString("v"))
                .build();
        assertThat(http.send(FencingToken.of(lock, 3), put, HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(204);
        assertThatThrownBy(() -> http.send(FencingToken.of(lock, 3), put, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.policy()).isEqualTo(Policy.STRICT));
    }

    /** A client that must fence every call refuses to send one without a token, and sends one with. */
    @Test
    @SuppressWarnings("try") // the scope is read by the interceptor, not the block
    void aClientThatRequiresATokenRefusesToCallWithoutOne() {
        RestClient strict = RestClient.builder().baseUrl(BASE)
                .requestInterceptor(FencingTokenInterceptor.fromContext().requireToken()).build();
        assertThatThrownBy(() -> strict.get().uri("/echo").retrieve().body(String.class))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("GET " + BASE + "/echo")
                .hasMessageContaining("has no fencing token to send");
        try (FencingContext.Scope scope = FencingContext.bind(FencingToken.of(lock, 3))) {
            assertThat(strict.get().uri("/echo").retrieve().body(String.class))
                    .isEqualTo(TokenHeader.format(FencingToken.of(lock, 3)));
        }
        RestClient lenient = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.fromContext())
                .build();
        assertThat(lenient.get().uri("/echo").retrieve().body(String.class)).as("sent without one").isEqualTo("none");
    }

    @Test
    void theGateRefusesAnOlderTokenBeforeTheHandlerRuns() {
        RestClient newer = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(
                FencingToken.of(lock, 8))).build();
        RestClient zombie = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(
                FencingToken.of(lock, 7))).build();
        int before = ItemsApp.GATED_CALLS.get();
        assertThat(newer.post().uri("/gated/echo").retrieve().body(String.class))
                .isEqualTo(TokenHeader.format(FencingToken.of(lock, 8)));

        assertThatThrownBy(() -> zombie.post().uri("/gated/echo").retrieve().body(String.class))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.highWaterMark()).isEqualTo(8);
                    assertThat(e.key()).isEqualTo(lock);
                });
        assertThat(ItemsApp.GATED_CALLS.get()).as("handler runs").isEqualTo(before + 1);
        assertThat(ItemsApp.GATE_MARKS.highWaterMark(TokenGate.keyOf(lock))).hasValue(8);
    }

    /** "Retry later" and "may have landed" reach the caller as themselves, not as a plain 409 or 500. */
    @Test
    void aServicesUnknownOutcomeAndLostRacesComeBackAsTheStoresExceptions() {
        RestClient rest = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(
                FencingToken.of(lock, 1))).build();
        assertThatThrownBy(() -> rest.post().uri("/failing/unclear").retrieve().toBodilessEntity())
                .isInstanceOfSatisfying(WriteOutcomeUnknownException.class,
                        e -> assertThat(e.key()).isEqualTo("unclear-item"));
        assertThatThrownBy(() -> rest.post().uri("/failing/busy").retrieve().toBodilessEntity())
                .isInstanceOfSatisfying(ConcurrentUpdateException.class, e -> assertThat(e.attempts()).isEqualTo(8));
    }

    /** Every client tells the caller's listener of the refusals it rethrows, as a local store would. */
    @Test
    void refusalsReachTheCallersListenerOnEveryClient() throws Exception {
        RecordingListener listener = new RecordingListener();
        RestClient newer = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(
                FencingToken.of(lock, 8))).build();
        newer.post().uri("/gated/echo").retrieve().toBodilessEntity();
        RestClient rest = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(
                FencingToken.of(lock, 7)).listener(listener)).build();
        assertThatThrownBy(() -> rest.post().uri("/gated/echo").retrieve().toBodilessEntity())
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> rest.post().uri("/failing/unclear").retrieve().toBodilessEntity())
                .isInstanceOf(WriteOutcomeUnknownException.class);

        WebClient web = WebClient.builder().baseUrl(BASE).clientConnector(new JdkClientHttpConnector())
                .filter(FencingExchangeFilter.of(FencingToken.of(lock, 6)).listener(listener)).build();
        assertThatThrownBy(() -> web.post().uri("/gated/echo").retrieve().toBodilessEntity()
                .block(Duration.ofSeconds(10))).isInstanceOf(StaleTokenException.class);

        FencedHttpClient http = FencedHttpClient.of(HttpClient.newHttpClient()).listener(listener);
        HttpRequest post = HttpRequest.newBuilder(URI.create(BASE + "/gated/echo"))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        assertThatThrownBy(() -> http.send(FencingToken.of(lock, 5), post, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(StaleTokenException.class);

        assertThat(listener.staleRejected()).isEqualTo(3);
    }

    /** A refusal naming a token this client did not send is no refusal of its own: a plain error. */
    @Test
    void aRefusalOfAnotherTokenIsNotTakenForTheCallersOwn() throws Exception {
        RestClient rest = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(
                FencingToken.of(lock, 1))).build();
        assertThatThrownBy(() -> rest.post().uri("/relaying-by-hand").retrieve().toBodilessEntity())
                .isInstanceOf(org.springframework.web.client.HttpClientErrorException.Conflict.class);
        WebClient web = WebClient.builder().baseUrl(BASE).clientConnector(new JdkClientHttpConnector())
                .filter(FencingExchangeFilter.of(FencingToken.of(lock, 1))).build();
        assertThatThrownBy(() -> web.post().uri("/relaying-by-hand").retrieve().toBodilessEntity()
                .block(Duration.ofSeconds(10))).isNotInstanceOf(StaleTokenException.class);
        FencedHttpClient http = FencedHttpClient.of(HttpClient.newHttpClient());
        HttpResponse<String> answer = http.send(FencingToken.of(lock, 1), HttpRequest.newBuilder(
                URI.create(BASE + "/relaying-by-hand")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(409);
    }

    @Test
    void aRefusalAnswerIsAProblemDocumentForClientsWithoutTheToolkit() throws Exception {
        String key = lock + "-problem";
        HttpClient raw = HttpClient.newHttpClient();
        HttpRequest.Builder put = HttpRequest.newBuilder(URI.create(BASE + "/MONOTONIC/fenced/items?key=" + key))
                .PUT(HttpRequest.BodyPublishers.ofString("v"));
        raw.send(put.copy().header(TokenHeader.HTTP_HEADER, "6; lock=" + lock).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> refused = raw.send(put.copy().header(TokenHeader.HTTP_HEADER, "5; lock=" + lock).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith(TokenRefusal.PROBLEM_MEDIA_TYPE));
        assertThat(refused.body()).contains("\"type\":\"" + TokenRefusal.STALE_TYPE + "\"", "\"status\":409",
                "\"mark\":6", "\"presented\":5", "\"key\":\"" + key + "\"");
        HttpResponse<String> malformed = raw.send(put.copy().header(TokenHeader.HTTP_HEADER, "5").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.body()).contains(TokenRefusal.MALFORMED_TYPE, "no ';'");
    }
}
