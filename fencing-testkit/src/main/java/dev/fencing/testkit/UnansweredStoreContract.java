package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of a store whose server stops answering (a network cut, a paused process past its
 * request timeout): a read, a {@code highWaterMark} and an {@code update} that cannot load are a
 * {@link StoreUnavailableException} naming the key, with nothing written; a write whose request
 * may have been sent is {@link WriteOutcomeUnknownException} or, if it was not sent,
 * {@link StoreUnavailableException}; every failed write is one
 * {@link FencingListener#onWriteFailed}; once the server answers again the same token writes.
 * Never the client's own timeout exception, so a caller catches one type for every store.
 *
 * <p>Extend it with a class whose store reaches its real server through a link the test can cut
 * (the test servers' {@code PartitionProxy}: no byte passes, connections stay open), built with a
 * request timeout of at most a few seconds.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class UnansweredStoreContract {

    /** Far above any store's request timeout here; not the point of the test. */
    private static final Duration GIVES_UP_WITHIN = Duration.ofSeconds(30);

    private static final String LOCK = "unanswered-lock";

    /**
     * A {@link dev.fencing.core.Policy#MONOTONIC} store against the real server through the link
     * {@link #cutLink()} cuts, with a request timeout of at most a few seconds, telling {@code listener}.
     */
    protected abstract FencedStore createStoreThroughLink(FencingListener listener);

    /** Stops every byte between the stores and the server; connections stay open. */
    protected abstract void cutLink();

    /** Lets bytes pass again (connections open during the cut may be closed). */
    protected abstract void healLink();

    @AfterEach
    void healTheLink() {
        healLink();
    }

    private static String uniqueKey(String name) {
        return "unanswered-" + name + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
    }

    private static FencingToken token(long value) {
        return FencingToken.of(LOCK, value);
    }

    @Test
    void aReadTheServerDoesNotAnswerIsStoreUnavailable() {
        FencedStore store = createStoreThroughLink(FencingListener.NONE);
        String key = uniqueKey("read");
        store.write(token(3), key, "before");
        cutLink();
        assertUnavailable(key, () -> store.read(key));
    }

    @Test
    void aHighWaterMarkTheServerDoesNotAnswerIsStoreUnavailable() {
        FencedStore store = createStoreThroughLink(FencingListener.NONE);
        String key = uniqueKey("mark");
        store.write(token(3), key, "before");
        cutLink();
        assertUnavailable(key, () -> store.highWaterMark(key));
    }

    @Test
    void anUpdateThatCannotLoadIsStoreUnavailableReportedOnceAndWritesNothing() {
        RecordingListener events = new RecordingListener();
        FencedStore store = createStoreThroughLink(events);
        String key = uniqueKey("update");
        store.write(token(3), key, "before");
        cutLink();
        assertUnavailable(key, () -> store.update(token(4), key, v -> "after"));
        assertThat(events.writeFailures()).as("listener: onWriteFailed").hasSize(1)
                .allMatch(StoreUnavailableException.class::isInstance);
        assertThat(events.staleRejected()).as("listener: onStaleWriteRejected").isZero();
        assertThat(events.accepted()).as("listener: onWriteAccepted (the first write only)").isEqualTo(1);
        healLink();
        assertThat(readOnceAnswering(store, key)).as("nothing was written by the failed update")
                .map(StoredValue::value).contains("before");
    }

    @Test
    void aWriteWithoutAReplyIsUnknownOrUnavailableAndReportedOnce() {
        RecordingListener events = new RecordingListener();
        FencedStore store = createStoreThroughLink(events);
        String key = uniqueKey("write");
        store.write(token(3), key, "before");
        cutLink();
        long start = System.nanoTime();
        assertThatThrownBy(() -> store.write(token(4), key, "after"))
                .isInstanceOfAny(WriteOutcomeUnknownException.class, StoreUnavailableException.class)
                .hasMessageContaining(key).hasCauseInstanceOf(Throwable.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GIVES_UP_WITHIN);
        assertThat(events.writeFailures()).as("listener: onWriteFailed").hasSize(1);
        assertThat(events.staleRejected()).as("listener: onStaleWriteRejected").isZero();
    }

    @Test
    void theSameTokenWritesOnceTheServerAnswersAgain() {
        FencedStore store = createStoreThroughLink(FencingListener.NONE);
        String key = uniqueKey("again");
        store.write(token(3), key, "before");
        cutLink();
        assertUnavailable(key, () -> store.read(key));
        healLink();
        // a pooled connection closed by the cut may fail a call once more: the same change, tried again
        await().atMost(GIVES_UP_WITHIN).ignoreExceptionsMatching(e -> e instanceof StoreUnavailableException
                || e instanceof WriteOutcomeUnknownException).untilAsserted(() -> store.update(token(3), key, v -> "after"));
        assertThat(store.read(key)).map(StoredValue::value).contains("after");
    }

    private static Optional<StoredValue> readOnceAnswering(FencedStore store, String key) {
        return await().atMost(GIVES_UP_WITHIN).ignoreExceptionsInstanceOf(StoreUnavailableException.class)
                .until(() -> store.read(key), any -> true);
    }

    private static void assertUnavailable(String key, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        long start = System.nanoTime();
        assertThatThrownBy(call).isInstanceOf(StoreUnavailableException.class).hasMessageContaining(key)
                .hasMessageContaining("nothing was written").satisfies(e -> {
                    assertThat(((StoreUnavailableException) e).key()).endsWith(key);
                    assertThat(e.getCause()).as("the client's own error").isNotNull();
                });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("gave up within").isLessThan(GIVES_UP_WITHIN);
    }
}
