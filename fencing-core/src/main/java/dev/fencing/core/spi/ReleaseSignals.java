package dev.fencing.core.spi;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Wakes threads waiting for a resource when a provider learns that it was released (its own
 * release, or a server notification such as Redis pub/sub). A waiter registers <em>before</em>
 * its acquisition attempt, so a release that happens between the failed attempt and the wait is
 * not missed.
 */
public final class ReleaseSignals {

    private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();
    private final AtomicLong wakeUps = new AtomicLong();

    private static final class Signal {
        long generation;
        int waiters;
        int sleeping; // guarded by the signal's monitor
        final java.util.List<Registration> callbacks = new java.util.ArrayList<>(); // guarded by the signal's monitor
    }

    /** A waiter's registration; close it when done waiting. */
    public final class Registration implements AutoCloseable {
        private final String resource;
        private final Signal signal;
        private long seen;
        private @Nullable Runnable callback; // guarded by the signal's monitor

        private Registration(String resource, Signal signal) {
            this.resource = resource;
            this.signal = signal;
            synchronized (signal) {
                this.seen = signal.generation;
            }
        }

        /**
         * Waits up to {@code nanos} for a release of the resource signalled since the
         * registration or the previous wait.
         *
         * @return true if woken by a signal, false on timeout
         */
        public boolean await(long nanos) throws InterruptedException {
            long end = System.nanoTime() + nanos;
            synchronized (signal) {
                signal.sleeping++;
                try {
                    while (signal.generation == seen) {
                        long left = end - System.nanoTime();
                        if (left <= 0) {
                            return false;
                        }
                        TimeUnit.NANOSECONDS.timedWait(signal, left);
                    }
                    seen = signal.generation;
                    return true;
                } finally {
                    signal.sleeping--;
                }
            }
        }

        /**
         * Runs {@code wake} once, on the signalling thread, at the first release signalled since
         * the registration or the previous wait — at once, on this thread, if one already was.
         * For a waiter that holds no thread while it waits ({@code acquireAsync}); {@code wake}
         * must be short and must not throw.
         */
        public void onNextSignal(Runnable wake) {
            boolean now;
            synchronized (signal) {
                now = signal.generation != seen;
                if (now) {
                    seen = signal.generation;
                } else {
                    if (callback == null) {
                        signal.callbacks.add(this);
                    }
                    callback = wake;
                }
            }
            if (now) {
                wake.run();
            }
        }

        @Override
        public void close() {
            synchronized (signal) {
                signal.callbacks.remove(this);
                callback = null;
            }
            signals.computeIfPresent(resource, (k, s) -> --s.waiters == 0 ? null : s);
        }
    }

    /** Registers interest in releases of {@code resource}. */
    public Registration register(String resource) {
        Signal signal = signals.compute(resource, (k, s) -> {
            Signal current = s == null ? new Signal() : s;
            current.waiters++;
            return current;
        });
        return new Registration(resource, signal);
    }

    /** Wakes every waiter of {@code resource}. Cheap when nobody waits. */
    public void signal(String resource) {
        Signal signal = signals.get(resource);
        if (signal != null) {
            // counted before anyone wakes: a woken waiter may acquire and its caller read the
            // count before this thread would get past the notify
            wakeUps.incrementAndGet();
            java.util.List<Runnable> wake = new java.util.ArrayList<>();
            synchronized (signal) {
                signal.generation++;
                signal.notifyAll();
                for (Registration registration : signal.callbacks) {
                    registration.seen = signal.generation;
                    if (registration.callback != null) {
                        wake.add(registration.callback);
                    }
                    registration.callback = null;
                }
                signal.callbacks.clear();
            }
            wake.forEach(Runnable::run);
        }
    }

    /** Whether any thread waits for {@code resource}. */
    public boolean hasWaiters(String resource) {
        return signals.containsKey(resource);
    }

    /** How many threads are registered for releases of {@code resource} right now. */
    public int waiters(String resource) {
        Signal signal = signals.get(resource);
        return signal == null ? 0 : signal.waiters;
    }

    /**
     * How many waiters of {@code resource} sleep until the next signal right now: threads asleep
     * in {@link Registration#await} plus waits armed by {@link Registration#onNextSignal}. They
     * failed an attempt and will be woken by the next signal (or their timeout).
     */
    public int sleepers(String resource) {
        Signal signal = signals.get(resource);
        if (signal == null) {
            return 0;
        }
        synchronized (signal) {
            return signal.sleeping + signal.callbacks.size();
        }
    }

    /** How many signals found a waiter since this object was created: a measure of the mechanism. */
    public long wakeUps() {
        return wakeUps.get();
    }
}
