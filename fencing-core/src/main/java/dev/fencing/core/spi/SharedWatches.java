package dev.fencing.core.spi;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One watch per key shared by every local waiter of that key, reference-counted: the first
 * waiter to {@link #join} a key opens the watch (a subscription, a place in a server's queue),
 * the last one to {@link Share#close() leave} closes it. A provider uses it so that a thousand
 * threads waiting for one resource cost the server one subscription or one queue entry, and a
 * resource nobody waits for costs nothing.
 *
 * <p>Guarantees:
 *
 * <ol>
 *   <li>At most one watch per key is open at a time, and a key has an open watch whenever it has
 *       at least one waiter that joined and has not left.
 *   <li>A waiter that joins while the last one leaves is never left without a watch: either it
 *       joins the old watch before the close begins (which then does not happen), or the old
 *       watch is closed completely — {@code close} has returned — before {@code open} makes the
 *       new one. So a close and the next open of the same key reach the server in that order.
 *   <li>{@code open} and {@code close} of one key never run at the same time; those of different
 *       keys may. Both run on the joining or leaving thread, under that key's monitor: they
 *       should only start their work (asynchronous calls), not wait for a server.
 * </ol>
 *
 * <p>If {@code open} throws (or returns null), the join fails with that exception and nothing stays registered;
 * the next join of the key tries again. {@code close} must not throw: a waiter's
 * {@link Share#close()} is called from a {@code finally} block. Thread-safe.
 *
 * @param <K> the key: a resource or a channel name
 * @param <W> the shared watch
 */
public final class SharedWatches<K, W> {

    private final ConcurrentHashMap<K, Entry<W>> entries = new ConcurrentHashMap<>();
    private final Function<? super K, ? extends W> open;
    private final BiConsumer<? super K, ? super W> close;

    /** A key's watch and its waiters; all fields guarded by the entry's monitor. */
    private static final class Entry<W> {
        int waiters;
        boolean closed; // the last waiter left: a later waiter needs a new entry
        @Nullable W watch;
    }

    /**
     * @param open opens the watch of a key for its first waiter
     * @param close closes a key's watch once its last waiter left; must not throw
     */
    public SharedWatches(Function<? super K, ? extends W> open, BiConsumer<? super K, ? super W> close) {
        this.open = open;
        this.close = close;
    }

    /** One waiter's share of a key's watch; closing it leaves, and the last to leave closes the watch. */
    public final class Share implements ReleaseWatch {
        private final K key;
        private final Entry<W> entry;
        private final W watch;
        private final AtomicBoolean left = new AtomicBoolean();

        private Share(K key, Entry<W> entry, W watch) {
            this.key = key;
            this.entry = entry;
            this.watch = watch;
        }

        /** The key's shared watch, open at least until this share is closed. */
        public W watch() {
            return watch;
        }

        /** Leaves the key's watch; only the first call counts. Throws only what {@code close} throws. */
        @Override
        public void close() {
            if (left.compareAndSet(false, true)) {
                leave(key, entry);
            }
        }
    }

    /**
     * Joins {@code key}'s watch, opening it if this is the key's first waiter.
     *
     * @return this waiter's share: close it when it stops waiting
     * @throws RuntimeException what {@code open} threw; the waiter did not join
     */
    public Share join(K key) {
        while (true) {
            Entry<W> entry = entries.computeIfAbsent(key, k -> new Entry<>());
            synchronized (entry) {
                if (!entry.closed) {
                    if (entry.waiters == 0) {
                        openFor(key, entry);
                    }
                    entry.waiters++;
                    return new Share(key, entry, requireWatch(entry));
                }
            }
            entries.remove(key, entry); // closed by its last waiter just now: make a new one
        }
    }

    private void openFor(K key, Entry<W> entry) {
        try {
            W watch = open.apply(key);
            if (watch == null) {
                throw new IllegalStateException("the watch opened for " + key + " is null");
            }
            entry.watch = watch;
        } catch (RuntimeException | Error e) {
            entry.closed = true;
            entries.remove(key, entry);
            throw e;
        }
    }

    private W requireWatch(Entry<W> entry) {
        W watch = entry.watch;
        if (watch == null) {
            throw new IllegalStateException("open returned null");
        }
        return watch;
    }

    private void leave(K key, Entry<W> entry) {
        synchronized (entry) {
            if (--entry.waiters > 0) {
                return;
            }
            entry.closed = true;
            try {
                close.accept(key, requireWatch(entry));
            } finally {
                entry.watch = null;
                entries.remove(key, entry);
            }
        }
    }

    /** The open watch of {@code key}, if it has a waiter now; it may close at any moment after. */
    public Optional<W> current(K key) {
        Entry<W> entry = entries.get(key);
        if (entry == null) {
            return Optional.empty();
        }
        synchronized (entry) {
            return entry.closed ? Optional.empty() : Optional.ofNullable(entry.watch);
        }
    }

    /** How many waiters share {@code key}'s watch now. */
    public int waiters(K key) {
        Entry<W> entry = entries.get(key);
        if (entry == null) {
            return 0;
        }
        synchronized (entry) {
            return entry.closed ? 0 : entry.waiters;
        }
    }

    /** The keys with an open watch now (a snapshot). */
    public Set<K> keys() {
        return entries.keySet().stream().filter(key -> waiters(key) > 0).collect(Collectors.toUnmodifiableSet());
    }

    /** The open watches now (a snapshot), for a provider that closes. */
    public List<W> watches() {
        return entries.keySet().stream().map(this::current).flatMap(Optional::stream).toList();
    }
}
