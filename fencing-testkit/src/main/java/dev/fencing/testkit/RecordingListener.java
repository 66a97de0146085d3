package dev.fencing.testkit;

import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.StaleTokenException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/** Counts lease and fencing events, for assertions on what a provider or store did. */
public final class RecordingListener implements FencingListener {

    private final AtomicInteger granted = new AtomicInteger();
    private final AtomicInteger renewed = new AtomicInteger();
    private final AtomicInteger released = new AtomicInteger();
    private final AtomicInteger lost = new AtomicInteger();
    private final AtomicInteger staleRejected = new AtomicInteger();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Map<Lease, List<String>> endings = new ConcurrentHashMap<>();
    private final Map<Lease, Duration> heldFor = new ConcurrentHashMap<>();
    private final List<FencingException> writeFailures = new CopyOnWriteArrayList<>();
    private final List<Duration> renewalWarnings = new CopyOnWriteArrayList<>();

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
        endings.computeIfAbsent(lease, l -> new CopyOnWriteArrayList<>()).add("released");
    }

    @Override
    public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
        lost.incrementAndGet();
        endings.computeIfAbsent(lease, l -> new CopyOnWriteArrayList<>()).add("lost: " + reason);
    }

    @Override
    public void onLost(Lease lease, String reason, @Nullable Throwable cause, Duration heldFor) {
        this.heldFor.put(lease, heldFor);
        onLost(lease, reason, cause);
    }

    @Override
    public void onRenewalsFailing(Lease lease, Duration remaining, @Nullable Throwable lastFailure) {
        renewalWarnings.add(remaining);
    }

    /** The time left told by each early warning ({@link FencingListener#onRenewalsFailing}), in order. */
    public List<Duration> renewalWarnings() {
        return List.copyOf(renewalWarnings);
    }

    @Override
    public void onStaleWriteRejected(StaleTokenException rejection) {
        staleRejected.incrementAndGet();
    }

    @Override
    public void onWriteAccepted(FencingToken token, String key) {
        accepted.incrementAndGet();
    }

    /** Writes accepted so far. */
    public int accepted() {
        return accepted.get();
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

    /** The endings reported for {@code lease}, in order: "released" or "lost: reason". */
    public List<String> endingsOf(Lease lease) {
        return List.copyOf(endings.getOrDefault(lease, List.of()));
    }

    /** How long {@code lease} was valid, as its loss reported it. */
    public Optional<Duration> heldForOf(Lease lease) {
        return Optional.ofNullable(heldFor.get(lease));
    }

    /** Stale writes refused so far. */
    public int staleRejected() {
        return staleRejected.get();
    }

    @Override
    public void onWriteFailed(String key, FencingException failure) {
        writeFailures.add(failure);
    }

    /** The failures {@code onWriteFailed} was told of so far (foreign tokens, lost races, unclear replies), in order. */
    public List<FencingException> writeFailures() {
        return List.copyOf(writeFailures);
    }
}
