package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.propagation.grpc.FencingGrpc;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Walking a failure's causes ends, whatever the chain looks like. */
class TokenRefusalFindTest {

    @Test
    void aCycleOfCausesEndsTheWalk() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b); // initCause refuses only a self-cause: a -> b -> a is allowed
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            assertThat(TokenRefusal.find(a)).isNull();
            assertThat(FencingGrpc.refusalOf(a)).isEmpty();
        });
    }

    @Test
    void aRefusalDeepInTheCausesIsFound() {
        StaleTokenException stale = StaleTokenException.of("k", FencingToken.of("l", 1), 2, Policy.MONOTONIC);
        RuntimeException wrapped = new RuntimeException("outer", new IllegalStateException("inner", stale));
        assertThat(TokenRefusal.find(wrapped)).isSameAs(stale);
        assertThat(FencingGrpc.refusalOf(wrapped)).containsSame(stale);
    }
}
