package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * What every section of {@link FencedStoreContract} shares: the store under test, built before each
 * test, the per-test resources closed after it, fresh keys and the contract lock's tokens. Every
 * test uses fresh keys, so a shared server needs no cleaning.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class StoreContractBase {

    private static final String LOCK = "contract-lock";

    /** The {@link Policy#MONOTONIC} store under test, built before each test. */
    protected FencedStore store;
    String prefix; // set before each test: the test's keys start with it
    private final List<AutoCloseable> perTest = new ArrayList<>();

    /**
     * A store against the real server applying {@code policy}. Called more than once per test:
     * each call must return an instance with its own client, connections and caches where the
     * store has any, as a second process writing to the same backend would have — the tests of
     * two holders rely on it. Register what it opens with {@link #closeAfterTest}.
     */
    protected abstract FencedStore createStore(Policy policy);

    /**
     * Registers a client, connection or pool that {@link #createStore} opened for one store, to be
     * closed after the current test, last opened first. Returns {@code resource}.
     */
    protected final <T extends AutoCloseable> T closeAfterTest(T resource) {
        synchronized (perTest) {
            perTest.add(Objects.requireNonNull(resource, "resource"));
        }
        return resource;
    }

    @AfterEach
    void closePerTestResources() {
        List<AutoCloseable> toClose;
        synchronized (perTest) {
            toClose = new ArrayList<>(perTest);
            perTest.clear();
        }
        IllegalStateException failed = null;
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                if (failed == null) {
                    failed = new IllegalStateException("closing a store's client after the test failed: " + toClose.get(i), e);
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    @BeforeEach
    void createStoreUnderTest(TestInfo info) {
        prefix = "contract-" + info.getTestMethod().map(m -> m.getName()).orElse("test") + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
        store = createStore(Policy.MONOTONIC);
    }

    /** A key unique to this test. */
    protected String key(String name) {
        return prefix + "-" + name;
    }

    /** A token of the contract's lock. */
    protected static FencingToken token(long value) {
        return FencingToken.of(LOCK, value);
    }

    /** Asserts that {@code write} is refused as stale, naming {@code expectedMark}. */
    static void assertStale(Runnable write, long expectedMark) {
        assertThatThrownBy(write::run).isInstanceOfSatisfying(StaleTokenException.class,
                e -> assertThat(e.highWaterMark()).as("the mark the refusal names").isEqualTo(expectedMark));
    }
}
