package dev.fencing.propagation.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import java.util.UUID;
import org.junit.jupiter.api.Test;

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
}
