package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingToken;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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

    /**
     * A request thread binds the caller's token and hands the work to a future; the scope is
     * closed in the future's whenComplete callback, on the completing thread. The next, unrelated
     * task on the pooled request thread must not send that token.
     */
    @Test
    void aScopeClosedByACompletionCallbackDoesNotStayBoundOnThePooledThread() throws Exception {
        ExecutorService requests = Executors.newSingleThreadExecutor();
        ExecutorService workers = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch registered = new CountDownLatch(1);
            CompletableFuture<Void> done = requests.submit(() -> {
                FencingContext.Scope scope = FencingContext.bind(FencingToken.of("request-1", 7));
                CompletableFuture<Void> work = CompletableFuture.runAsync(() -> {
                    try {
                        registered.await(); // completes after the callback is registered: it runs here
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, workers).whenComplete((v, e) -> scope.close());
                registered.countDown();
                return work;
            }).get();
            done.get(30, TimeUnit.SECONDS);
            Optional<FencingToken> seenByTheNextRequest = requests.submit(FencingContext::currentToken).get();
            assertThat(seenByTheNextRequest).as("the token the next request on the pooled thread would send").isEmpty();
        } finally {
            requests.shutdownNow();
            workers.shutdownNow();
            requests.awaitTermination(5, TimeUnit.SECONDS);
            workers.awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
