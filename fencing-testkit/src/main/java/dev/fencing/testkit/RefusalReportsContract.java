package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.spi.Refusals;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The contract of a store's reports: every refused write — through {@code write}, {@code delete}
 * or {@code update}, found before the write or by it — is logged exactly once at WARN on
 * {@value Refusals#LOGGER} and told to the listener exactly once; a write of another lock's key
 * is one {@link FencingListener#onWriteFailed}; an accepted write is one
 * {@link FencingListener#onWriteAccepted} and no WARN. A store built from layers (a wrapper under
 * the store) must not report a refusal in each.
 *
 * <p>Extend it in the store's module with a class that builds the store against a real server.
 * The log lines are counted where slf4j-simple writes them ({@link LogLines}); under another
 * logging binding only the listener is checked, and the test says so on standard error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class RefusalReportsContract {

    private static final String LOCK = "reports-lock";

    /** A {@link Policy#MONOTONIC} store against the real server that tells {@code listener}. */
    protected abstract FencedStore createStore(FencingListener listener);

    /** A key unique to this run of the test, to find the test's own log lines. */
    private static String uniqueKey(String name) {
        return "reports-" + name + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
    }

    private static FencingToken token(long value) {
        return FencingToken.of(LOCK, value);
    }

    @Test
    void aStaleWriteIsReportedOnce() {
        RecordingListener events = new RecordingListener();
        FencedStore store = createStore(events);
        String key = uniqueKey("write");
        store.write(token(7), key, "holder");
        assertReportedOnce(events, key, () -> store.write(token(5), key, "zombie"));
        assertThat(events.accepted()).as("the holder's write, once").isEqualTo(1);
    }

    @Test
    void aStaleDeleteIsReportedOnce() {
        RecordingListener events = new RecordingListener();
        FencedStore store = createStore(events);
        String key = uniqueKey("delete");
        store.write(token(7), key, "holder");
        assertReportedOnce(events, key, () -> store.delete(token(5), key));
    }

    @Test
    void aStaleUpdateIsReportedOnce() {
        RecordingListener events = new RecordingListener();
        FencedStore store = createStore(events);
        String key = uniqueKey("update");
        store.write(token(7), key, "holder");
        assertReportedOnce(events, key, () -> store.update(token(5), key, v -> "zombie"));
    }

    @Test
    void aRefusalFoundByTheConditionalWriteOfAnUpdateIsReportedOnce() {
        RecordingListener events = new RecordingListener();
        FencedStore zombie = createStore(events);
        FencedStore holder = createStore(FencingListener.NONE);
        String key = uniqueKey("raced");
        holder.write(token(5), key, "first");
        assertReportedOnce(events, key, () -> zombie.update(token(5), key, v -> {
            holder.write(token(9), key, "holder"); // lands between the zombie's read and its write
            return "zombie";
        }));
    }

    @Test
    void aRefusalOfADeleteOfAnAbsentKeyIsReportedOnce() {
        RecordingListener events = new RecordingListener();
        FencedStore store = createStore(events);
        String key = uniqueKey("tombstone");
        store.delete(token(7), key);
        assertReportedOnce(events, key, () -> store.write(token(5), key, "zombie"));
    }

    @Test
    void aWriteOfAKeyOfAnotherLockIsOneFailureAndNoRefusal() {
        RecordingListener events = new RecordingListener();
        FencedStore store = createStore(events);
        String key = uniqueKey("foreign");
        store.write(token(7), key, "holder");
        try (LogLines log = LogLines.containing(key)) {
            log.showWarningsOf(Refusals.LOGGER);
            assertThatThrownBy(() -> store.write(FencingToken.of("another-lock", 99), key, "other"))
                    .isInstanceOf(ForeignTokenException.class);
            assertThat(events.writeFailures()).as("listener: onWriteFailed").hasSize(1)
                    .allMatch(ForeignTokenException.class::isInstance);
            assertThat(events.staleRejected()).as("listener: onStaleWriteRejected").isZero();
            assertThat(refusalWarnings(log)).as("refusal WARN lines naming the key").isEmpty();
        }
    }

    @Test
    void anAcceptedWriteIsOneAcceptanceAndNoWarning() {
        RecordingListener events = new RecordingListener();
        FencedStore store = createStore(events);
        String key = uniqueKey("accepted");
        try (LogLines log = LogLines.containing(key)) {
            log.showWarningsOf(Refusals.LOGGER);
            store.write(token(7), key, "v");
            store.update(token(7), key, v -> v + "+");
            store.delete(token(8), key);
            assertThat(events.accepted()).as("listener: onWriteAccepted").isEqualTo(3);
            assertThat(events.staleRejected() + events.writeFailures().size()).as("other events").isZero();
            assertThat(log.warnings()).as("WARN lines naming the key").isEmpty();
        }
    }

    private static void assertReportedOnce(RecordingListener events, String key, Executable refused) {
        int failuresBefore = events.writeFailures().size();
        try (LogLines log = LogLines.containing(key)) {
            boolean counting = log.showWarningsOf(Refusals.LOGGER);
            assertThatThrownBy(refused::execute).isInstanceOf(StaleTokenException.class);
            assertThat(events.staleRejected()).as("listener: onStaleWriteRejected per refusal").isEqualTo(1);
            assertThat(events.writeFailures()).as("listener: onWriteFailed").hasSize(failuresBefore);
            if (counting) {
                assertThat(refusalWarnings(log)).as("WARN lines on " + Refusals.LOGGER + " naming the key").hasSize(1);
            } else {
                System.err.println("NOT CHECKED: the WARN lines of a refusal (the logging binding is not slf4j-simple,"
                        + " whose lines LogLines counts); the listener was checked");
            }
        }
    }

    private static List<String> refusalWarnings(LogLines log) {
        return log.warnings().stream().filter(line -> line.contains(Refusals.LOGGER)).toList();
    }
}
