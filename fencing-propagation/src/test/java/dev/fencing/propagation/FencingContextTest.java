package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.testkit.InMemoryLockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class FencingContextTest {

    @Test
    @SuppressWarnings("try") // the scopes act through FencingContext, not the blocks
    void scopesNestAndClosingRestoresTheOuterOne() {
        FencingToken outer = FencingToken.of("a", 1);
        FencingToken inner = FencingToken.of("b", 2);
        assertThat(FencingContext.currentToken()).isEmpty();
        try (FencingContext.Scope o = FencingContext.bind(outer)) {
            assertThat(FencingContext.currentToken()).contains(outer);
            try (FencingContext.Scope i = FencingContext.bind(inner)) {
                assertThat(FencingContext.currentToken()).contains(inner);
            }
            assertThat(FencingContext.currentToken()).contains(outer);
        }
        assertThat(FencingContext.currentToken()).isEmpty();
    }

    @Test
    void aLeaseScopeReadsTheLeasesTokenAndOtherThreadsSeeNothing() throws Exception {
        try (InMemoryLockProvider locks = InMemoryLockProvider.create();
                Lease lease = locks.acquire("r", LeaseOptions.ofTtl(Duration.ofSeconds(30)));
                FencingContext.Scope scope = FencingContext.bind(lease)) {
            assertThat(FencingContext.currentToken()).contains(lease.token());
            assertThat(CompletableFuture.supplyAsync(FencingContext::currentToken).get()).isEqualTo(Optional.empty());
            assertThat(scope.toString()).contains("lease of 'r'");
        }
    }

    @Test
    void closingOnAnotherThreadEndsTheBindingThere() throws Exception {
        FencingContext.Scope outer = FencingContext.bind(FencingToken.of("a", 1));
        FencingContext.Scope inner = FencingContext.bind(FencingToken.of("b", 2));
        CompletableFuture.runAsync(inner::close).get();
        assertThat(FencingContext.currentToken()).as("the inner scope, closed elsewhere, no longer binds")
                .contains(FencingToken.of("a", 1));
        outer.close();
        assertThat(FencingContext.currentToken()).isEmpty();
        inner.close();
        assertThat(FencingContext.currentToken()).isEmpty();
    }

    @Test
    void closingOutOfOrderEndsTheInnerScopesToo() {
        FencingContext.Scope outer = FencingContext.bind(FencingToken.of("a", 1));
        FencingContext.Scope inner = FencingContext.bind(FencingToken.of("b", 2));
        assertThatThrownBy(outer::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("both are closed now");
        assertThat(FencingContext.currentToken()).isEmpty();
        inner.close();
        outer.close();
        assertThat(FencingContext.currentToken()).isEmpty();
        assertThatThrownBy(() -> FencingContext.bind((Lease) null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FencingContext.bind((FencingToken) null)).isInstanceOf(IllegalArgumentException.class);
    }
}
