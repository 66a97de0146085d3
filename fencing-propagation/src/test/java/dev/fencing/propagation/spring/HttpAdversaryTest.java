package dev.fencing.propagation.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/** Attacks on the HTTP transport, against {@link ItemsApp}. */
class HttpAdversaryTest {

    private static final String BASE = ItemsApp.baseUrl();

    /** The HTTP twin of the gRPC case: a foreign refusal of the longest names still reaches the caller. */
    @Test
    void aForeignRefusalOfTheLongestNamesReachesTheCaller() {
        String tag = UUID.randomUUID().toString().substring(0, 8);
        String key = tag + "中".repeat(248);
        FencingToken owner = FencingToken.of(tag + "中".repeat(248), 7);
        FencingToken other = FencingToken.of(tag + "国".repeat(248), 8);
        FencedStore client = new HttpItemsClient(BASE, Policy.MONOTONIC);
        client.write(owner, key, "v");
        assertThatThrownBy(() -> client.write(other, key, "w")).isInstanceOf(ForeignTokenException.class);
    }

    /**
     * A handler writes with the caller's token (applied), then its own outbound call is refused
     * for a token of the handler's own lock. The advice answers that refusal as if it were the
     * caller's: 409 with a stale refusal naming a token the caller never sent, and the caller's
     * client throws StaleTokenException, whose documented meaning is "not applied, a newer holder
     * wrote there: stop", though its write landed and its token is the newest.
     */
    @Test
    void aRefusalOfATokenTheCallerNeverSentIsNotReportedAsTheCallersRefusal() {
        String tag = UUID.randomUUID().toString().substring(0, 8);
        String key = "relay-" + tag;
        String downstreamLock = "relay-own-lock-" + tag;
        FencedStore store = new HttpItemsClient(BASE, Policy.MONOTONIC);
        store.write(FencingToken.of(downstreamLock, 5), key + "-downstream", "newer");
        FencingToken mine = FencingToken.of("relay-caller-" + tag, 1);
        RestClient caller = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(mine)).build();
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> caller.put()
                .uri(b -> b.path("/relay/items").queryParam("key", key).queryParam("downstreamLock", downstreamLock).build())
                .contentType(MediaType.TEXT_PLAIN).body("mine").retrieve().toBodilessEntity());
        org.assertj.core.api.Assertions.assertThat(store.read(key)).as("the caller's write landed")
                .contains(new StoredValue(key, "mine", 1));
        org.assertj.core.api.Assertions.assertThat(thrown).as("the caller's token was never refused")
                .isNotInstanceOf(StaleTokenException.class);
    }

    /**
     * The relay case with a lost race instead of a stale token: a handler writes with the caller's
     * token (landed), then its own call elsewhere answers "concurrent update". The advice relays it
     * as the caller's own 409 concurrent-update, and the caller's client throws
     * ConcurrentUpdateException, whose documented meaning is "nothing was written, retry later",
     * for a write that landed: a retry applies the caller's change a second time.
     */
    @Test
    void aLostRaceOfTheHandlersOwnCallIsNotReportedAsTheCallersLostRace() {
        String tag = UUID.randomUUID().toString().substring(0, 8);
        String key = "relay-busy-" + tag;
        FencedStore store = new HttpItemsClient(BASE, Policy.MONOTONIC);
        FencingToken mine = FencingToken.of("relay-busy-caller-" + tag, 1);
        RestClient caller = RestClient.builder().baseUrl(BASE).requestInterceptor(FencingTokenInterceptor.of(mine)).build();
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> caller.put()
                .uri(b -> b.path("/relay-busy/items").queryParam("key", key).build())
                .contentType(MediaType.TEXT_PLAIN).body("mine").retrieve().toBodilessEntity());
        org.assertj.core.api.Assertions.assertThat(store.read(key)).as("the caller's write landed")
                .contains(new StoredValue(key, "mine", 1));
        org.assertj.core.api.Assertions.assertThat(thrown).as("the caller's write did not lose a race")
                .isNotNull().isNotInstanceOf(dev.fencing.core.ConcurrentUpdateException.class);
    }

    /**
     * A fenced DELETE whose reply is lost, sent through RestClient over the JDK's
     * HttpURLConnection (SimpleClientHttpRequestFactory). The delete landed; if the connection
     * silently sends it again, a STRICT service refuses the repeat of the same token, and the
     * caller gets StaleTokenException ("not applied: stop") for a delete that landed, where it
     * must get an unclear error.
     */
    @Test
    void aDeleteWhoseReplyIsLostIsNotReportedStaleOverHttpUrlConnection() {
        lostReplyThrough("DELETE", new org.springframework.http.client.SimpleClientHttpRequestFactory());
    }

    /** The same for a PUT. */
    @Test
    void aPutWhoseReplyIsLostIsNotReportedStaleOverHttpUrlConnection() {
        lostReplyThrough("PUT", new org.springframework.http.client.SimpleClientHttpRequestFactory());
    }

    /** The same for a DELETE over RestClient's default request factory. */
    @Test
    void aDeleteWhoseReplyIsLostIsNotReportedStaleOverTheDefaultFactory() {
        lostReplyThrough("DELETE", null);
    }

    private static void lostReplyThrough(String method,
            org.springframework.http.client.@org.jspecify.annotations.Nullable ClientHttpRequestFactory factory) {
        String tag = UUID.randomUUID().toString().substring(0, 8);
        String key = "lost-" + method + "-" + tag;
        FencingToken token = FencingToken.of("lost-lock-" + tag, 3);
        FencedStore store = new HttpItemsClient(BASE, Policy.STRICT);
        store.write(FencingToken.of(token.resource(), 2), key, "before");
        try (dev.fencing.testkit.ReplyDroppingProxy proxy = dev.fencing.testkit.ReplyDroppingProxy.inFrontOf(BASE)) {
            RestClient.Builder builder = RestClient.builder().baseUrl(proxy.httpEndpoint())
                    .requestInterceptor(FencingTokenInterceptor.of(token));
            if (factory != null) {
                builder.requestFactory(factory);
            }
            RestClient rest = builder.build();
            proxy.dropNextReply();
            RestClient.RequestBodySpec request = rest.method(org.springframework.http.HttpMethod.valueOf(method))
                    .uri(b -> b.path("/STRICT/fenced/items").queryParam("key", key).build());
            if (method.equals("PUT")) {
                request.contentType(MediaType.TEXT_PLAIN).body("after");
            }
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(
                    () -> request.retrieve().toBodilessEntity());
            org.assertj.core.api.Assertions.assertThat(proxy.dropped()).as("the reply was lost").isEqualTo(1);
            org.assertj.core.api.Assertions.assertThat(store.highWaterMark(key)).as("the write landed").hasValue(3L);
            org.assertj.core.api.Assertions.assertThat(thrown).as("a lost reply, not a refusal")
                    .isNotNull().isNotInstanceOf(StaleTokenException.class);
        }
    }
}
