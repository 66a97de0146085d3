package dev.fencing.propagation.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * Every way a refusal reaches the caller of a Spring MVC service as itself, against
 * {@link ItemsApp} (which has an application catch-all advice, as most services do): wrapped by
 * the handler's plumbing, behind that catch-all, on an async and an error dispatch, and for a lock
 * the service did not declare. Two callers, each with its own client.
 */
class HttpRefusalPathsTest {

    private static final String BASE = ItemsApp.baseUrl();

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static RestClient caller(FencingToken token) {
        return RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(token)).build();
    }

    private static void put(RestClient client, String path, String key, String value) {
        client.put().uri(b -> b.path(path).queryParam("key", key).build()).contentType(MediaType.TEXT_PLAIN).body(value)
                .retrieve().toBodilessEntity();
    }

    /** The status a request without a token gets, read as it is. */
    private static HttpStatusCode statusOf(RestClient.RequestHeadersSpec<?> request) {
        return request.exchange((req, res) -> res.getStatusCode());
    }

    @Test
    void aRefusalWrappedByTheHandlersPlumbingReachesTheCallerAsTheStoresException() {
        String key = unique("wrapped");
        String lock = unique("wrapped-lock");
        put(caller(FencingToken.of(lock, 5)), "/MONOTONIC/wrapped/items", key, "newer");

        FencingToken zombie = FencingToken.of(lock, 4);
        assertThatThrownBy(() -> put(caller(zombie), "/MONOTONIC/wrapped/items", key, "stale"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(zombie);
                    assertThat(e.highWaterMark()).isEqualTo(5);
                });
        assertThat(new HttpItemsClient(BASE, Policy.MONOTONIC).read(key)).contains(new StoredValue(key, "newer", 5));
        assertThatThrownBy(() -> caller(zombie).post().uri("/wrapped/busy").retrieve().toBodilessEntity())
                .isInstanceOf(ConcurrentUpdateException.class);
    }

    @Test
    void theApplicationsCatchAllAdviceDoesNotAnswerARefusal() {
        String key = unique("catch-all");
        String lock = unique("catch-all-lock");
        FencedStore newer = new HttpItemsClient(BASE, Policy.MONOTONIC);
        newer.write(FencingToken.of(lock, 3), key, "newer");

        assertThatThrownBy(() -> put(caller(FencingToken.of(lock, 2)), "/MONOTONIC/fenced/items", key, "stale"))
                .isInstanceOf(StaleTokenException.class);
        RestClient noToken = RestClient.builder().baseUrl(BASE).build();
        assertThat(statusOf(noToken.post().uri("/failing/busy"))).as("a handler's missing token")
                .isEqualTo(HttpStatusCode.valueOf(428));
        assertThat(statusOf(noToken.post().uri("/wrapped/busy"))).isEqualTo(HttpStatusCode.valueOf(428));
    }

    /** The write lands on the async thread; the ASYNC dispatch that answers must not admit again. */
    @Test
    void anAsyncHandlersAnswerIsNotARefusalOfTheTokenItsRequestSpent() {
        String key = unique("async");
        FencingToken token = FencingToken.of(unique("async-lock"), 1);
        put(caller(token), "/once/async-items", key, "written");

        assertThat(new HttpItemsClient(BASE, Policy.STRICT).read(key)).contains(new StoredValue(key, "written", 1));
        assertThat(ItemsApp.ONCE_ADMITTED).as("admissions of the request's token").filteredOn(token::equals).hasSize(1);
    }

    /** The write lands, then the handler fails: the error page's dispatch answers its failure, not 409. */
    @Test
    void anErrorPageAfterTheWriteAnswersTheFailureNotARefusal() {
        String key = unique("error-page");
        FencingToken token = FencingToken.of(unique("error-lock"), 1);
        HttpStatusCode status = statusOf(caller(token).put().uri(b -> b.path("/once/failing-items")
                .queryParam("key", key).build()).contentType(MediaType.TEXT_PLAIN).body("written"));

        assertThat(status).as("the handler's own failure").isEqualTo(HttpStatusCode.valueOf(503));
        assertThat(new HttpItemsClient(BASE, Policy.STRICT).read(key)).contains(new StoredValue(key, "written", 1));
        assertThat(ItemsApp.ONCE_ADMITTED).as("admissions of the request's token").filteredOn(token::equals).hasSize(1);
    }

    /**
     * The leader writes with the declared lock's token; a second worker, configured with a typo,
     * leads its own lock alone. Without a declaration the service accepts both, alternating; with
     * one, the typo'd worker is refused as foreign, before its handler, and the refusal is told.
     */
    @Test
    void aTypoInTheCallersLockNameIsRefusedAsForeign() {
        String key = unique("declared");
        FencingToken leader = FencingToken.of("billing-scheduler", 7);
        FencingToken typo = FencingToken.of("billing-schedular", 1);
        int told = ItemsApp.DECLARED_LISTENER.writeFailures().size();

        put(caller(leader), "/declared/items", key, "from the leader");
        assertThatThrownBy(() -> put(caller(typo), "/declared/items", key, "from the typo"))
                .isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                    assertThat(e.presented()).isEqualTo(typo);
                    assertThat(e.boundResource()).isEqualTo("billing-scheduler");
                    assertThat(e.key()).isEqualTo("PUT /declared/items");
                });

        assertThat(new HttpItemsClient(BASE, Policy.MONOTONIC).read(key))
                .contains(new StoredValue(key, "from the leader", 7));
        assertThat(ItemsApp.DECLARED_LISTENER.writeFailures()).hasSize(told + 1).last()
                .isInstanceOf(ForeignTokenException.class);
    }

    @Test
    void aPatternDeclaredForAPathAllowsItsLocksThereOnly() {
        String key = unique("declared-order");
        FencingToken order = FencingToken.of("order-17", 2);
        put(caller(order), "/declared/orders/items", key, "order");
        assertThatThrownBy(() -> put(caller(order), "/declared/items", key + "-elsewhere", "order"))
                .isInstanceOfSatisfying(ForeignTokenException.class,
                        e -> assertThat(e.boundResource()).isEqualTo("billing-scheduler"));
        assertThat(new HttpItemsClient(BASE, Policy.MONOTONIC).read(key)).contains(new StoredValue(key, "order", 2));
    }
}
