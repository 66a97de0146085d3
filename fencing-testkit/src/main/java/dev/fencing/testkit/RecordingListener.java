package dev.fencing.testkit;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.StaleTokenException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/** Counts lease and fencing events, for assertions on what a provider or store did. */
public final class RecordingListener implements FencingListener {

    private final AtomicInteger granted = new AtomicInteger();
    private final AtomicInteger renewed = new AtomicInteger();
    private final AtomicInteger released = new AtomicInteger();
    private final AtomicInteger lost = new AtomicInteger();
    private final AtomicInteger staleRejected = new AtomicInteger();

    @Override
    public void onGranted(Lease lease) {
        granted.incrementAndGet();
    }

    @Override
    public void onRenewed(Lease lease) {
        renewed.incrementAndGet();
    }

    @Override
    public void onReleased(Lease lease) {
        released.incrementAndGet();
    }

    @Override
    public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
        lost.incrementAndGet();
    }

    @Override
    public void onStaleWriteRejected(StaleTokenException rejection) {
        staleRejected.incrementAndGet();
    }

    /** Leases granted so far. */
    public int granted() {
        return granted.get();
    }

    /** Renewals so far. */
    public int renewed() {
        return renewed.get();
    }

    /** Releases so far. */
    public int released() {
        return released.get();
    }

    /** Leases found lost so far. */
    public int lost() {
        return lost.get();
    }

    /** Stale writes refused so far. */
    public int staleRejected() {
        return staleRejected.get();
    }
}
