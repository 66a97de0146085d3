package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingToken;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scopes on pooled threads. */
class FencingContextAdversaryTest {

    /**
     * A task opens a scope with try-with-resources and, inside it, binds another one it forgets to
     * close. Closing the outer scope throws (close the inner one first) and leaves the inner one
     * bound: the next, unrelated task on the same pooled thread sends the forgotten token with
     * every implicit call.
     */
    @Test
    @SuppressWarnings({"try", "resource"})
    void aForgottenInnerScopeDoesNotOutliveTheTaskThatOpenedIt() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            pool.submit(() -> {
                try (FencingContext.Scope outer = FencingContext.bind(FencingToken.of("task-1", 1))) {
                    FencingContext.bind(FencingToken.of("task-1-inner", 2));
                } catch (IllegalStateException expected) {
                    // the misuse is reported
                }
            }).get();
            Optional<FencingToken> seenByTheNextTask = pool.submit(FencingContext::currentToken).get();
            assertThat(seenByTheNextTask).as("the token the next task on the pooled thread would send").isEmpty();
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
