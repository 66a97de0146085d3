package dev.fencing.core.spi;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A lease whose server answers are set by the test. */
class FakeLease extends AbstractLease {
    final AtomicBoolean held = new AtomicBoolean(true);
    final AtomicReference<RuntimeException> renewFailure = new AtomicReference<>();
    final AtomicReference<RuntimeException> releaseFailure = new AtomicReference<>();
    final AtomicInteger renewals = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();

    FakeLease(MonotonicClock clock, Duration ttl, FencingListener listener) {
        super(FencingToken.of("r", 7), OwnerIds.random(), clock.nanoTime(), ttl, clock, listener);
    }

    @Override
    protected boolean doRenew(Duration ttl) {
        renewals.incrementAndGet();
        RuntimeException failure = renewFailure.get();
        if (failure != null) {
            throw failure;
        }
        return held.get();
    }

    @Override
    protected boolean doRelease() {
        releases.incrementAndGet();
        RuntimeException failure = releaseFailure.get();
        if (failure != null) {
            throw failure;
        }
        return held.getAndSet(false);
    }

    void lose(String reason) {
        markLost(reason, null);
    }
}
