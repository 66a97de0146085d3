package dev.fencing.etcd;

import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.etcd.internal.Replies;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * This process's place in one resource's etcd queue while some of its threads wait for the
 * resource: one ticket key ({@code <prefix>/<resource>/queue/<32 hex>}, on an etcd lease of
 * {@value #TICKET_TTL_SECONDS} s of its own that this process keeps alive) stands in line for all
 * of them; the line is the order of the tickets' create revisions. The process whose ticket is at
 * the head watches the lock key; every other process watches only the ticket just before its
 * own. A release therefore wakes one process — the head — and a head taking the lock wakes one
 * more — the next, which becomes the head: no herd, and processes are served in the order they
 * came. An attempt of a process whose ticket is not at the head does not touch the lock key.
 *
 * <p>A waiting process that dies or freezes holds up the processes behind it until its ticket's
 * lease expires (at most {@value #TICKET_TTL_SECONDS} s); callers of {@code tryAcquire} in other
 * processes are not in line and may take the lock first (the lock stays correct, only the order is
 * not first-come first-served for them). The provider shares one queue among its waiters with
 * {@link dev.fencing.core.spi.SharedWatches}: the last local waiter to stop waiting closes it,
 * which revokes the ticket's lease and so deletes the ticket.
 *
 * <p>Thread-safe; one etcd round trip at a time per resource and process.
 */
final class EtcdWaitQueue {

    /** The TTL of a ticket's etcd lease: how long a frozen waiting process can hold up the line. */
    static final long TICKET_TTL_SECONDS = 5;

    /** The lock attempt on the lock key, for the head of the line. */
    @FunctionalInterface
    interface HeadAttempt {
        Optional<AbstractLease> attempt() throws Replies.Unclear, InterruptedException;
    }

    private final KV kv;
    private final Lease leases;
    private final Watch watches;
    private final ScheduledExecutorService timers;
    private final Duration requestTimeout;
    private final ByteSequence lockKey;
    private final String queuePrefix;
    private final Runnable wake;
    private final LongConsumer giveBack;
    private final LongConsumer seen;
    private boolean closed; // guarded by this: the last waiter left
    private @Nullable Ticket ticket; // guarded by this
    private Watch.@Nullable Watcher watcher; // guarded by this

    /** A ticket in line: its key, create revision and lease, and the timer keeping the lease alive. */
    private record Ticket(ByteSequence key, long createRevision, long leaseId, ScheduledFuture<?> keepAlive) {}

    /**
     * @param wake called (on jetcd's event thread) when this process may be next: the ticket
     *     before its own, or the lock key, was deleted
     * @param giveBack revokes a lease (and so deletes the ticket on it), retried in the background
     * @param seen told the revision of every answer and watch event (the provider's high-water mark)
     */
    EtcdWaitQueue(KV kv, Lease leases, Watch watches, ScheduledExecutorService timers, Duration requestTimeout,
            EtcdKeys keys, String resource, Runnable wake, LongConsumer giveBack, LongConsumer seen) {
        this.kv = kv;
        this.leases = leases;
        this.watches = watches;
        this.timers = timers;
        this.requestTimeout = requestTimeout;
        this.lockKey = keys.lockKeyBytes(resource);
        this.queuePrefix = keys.queuePrefix(resource);
        this.wake = wake;
        this.giveBack = giveBack;
        this.seen = seen;
    }

    /**
     * The last local waiter left (see {@link dev.fencing.core.spi.SharedWatches}): takes this
     * process out of the line and stops the watch; later attempts try the lock key directly.
     */
    synchronized void close() {
        closed = true;
        dropTicket();
        closeWatcher();
    }

    /** The provider is closing: takes this process out of the line now rather than after its ticket's TTL. */
    synchronized void abandon() {
        dropTicket();
        closeWatcher();
    }

    /**
     * One attempt of a local waiter: puts this process's ticket in line if it has none; at the
     * head, attempts the lock (and on success leaves the line, waking the next process) or else
     * watches the lock key from {@code seenRevision}; elsewhere in line, watches the ticket before
     * its own.
     *
     * @param seenRevision the revision the head's failed attempt saw, read after the attempt
     * @throws Replies.Unclear if etcd did not answer; a ticket whose put went unanswered is revoked
     */
    synchronized Optional<AbstractLease> poll(HeadAttempt head, java.util.function.LongSupplier seenRevision)
            throws Replies.Unclear, InterruptedException {
        if (closed) {
            return head.attempt();
        }
        for (int tries = 0; tries < 3; tries++) {
            if (ticket == null) {
                ticket = newTicket();
            }
            GetResponse line = Replies.await(kv.get(EtcdKeys.bytes(queuePrefix), GetOption.builder().isPrefix(true)
                    .withKeysOnly(true).withSortField(GetOption.SortTarget.CREATE)
                    .withSortOrder(GetOption.SortOrder.ASCEND).build()), requestTimeout);
            seen.accept(line.getHeader().getRevision());
            List<KeyValue> tickets = line.getKvs().stream().filter(this::isTicket).toList();
            int position = -1;
            for (int i = 0; i < tickets.size(); i++) {
                if (tickets.get(i).getCreateRevision() == ticket.createRevision()
                        && tickets.get(i).getKey().equals(ticket.key())) {
                    position = i;
                }
            }
            if (position < 0) {
                dropTicket(); // its lease expired (this process froze, or lost etcd): stand in line again
                continue;
            }
            if (position == 0) {
                Optional<AbstractLease> granted = head.attempt();
                if (granted.isPresent()) {
                    dropTicket(); // the next process in line becomes the head
                    closeWatcher();
                } else {
                    watchForDelete(lockKey, seenRevision.getAsLong());
                }
                return granted;
            }
            watchForDelete(tickets.get(position - 1).getKey(), line.getHeader().getRevision());
            return Optional.empty();
        }
        return Optional.empty();
    }

    private boolean isTicket(KeyValue kv) {
        String key = kv.getKey().toString(java.nio.charset.StandardCharsets.UTF_8);
        return key.length() == queuePrefix.length() + 32 && key.startsWith(queuePrefix)
                && key.substring(queuePrefix.length()).chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }

    private Ticket newTicket() throws Replies.Unclear, InterruptedException {
        CompletableFuture<LeaseGrantResponse> granting = leases.grant(TICKET_TTL_SECONDS);
        LeaseGrantResponse grant;
        try {
            grant = Replies.await(granting, requestTimeout);
        } catch (Replies.Unclear | InterruptedException e) {
            granting.thenAccept(late -> giveBack.accept(late.getID()));
            throw e;
        }
        ByteSequence key = EtcdKeys.bytes(queuePrefix + OwnerIds.random());
        PutResponse put;
        try {
            put = Replies.await(kv.put(key, ByteSequence.EMPTY, PutOption.builder().withLeaseId(grant.getID()).build()),
                    requestTimeout);
        } catch (Replies.Unclear | InterruptedException e) {
            giveBack.accept(grant.getID()); // the ticket may be in line: revoking its lease takes it out
            throw e;
        }
        long every = TimeUnit.SECONDS.toMillis(TICKET_TTL_SECONDS) / 3;
        long leaseId = grant.getID();
        ScheduledFuture<?> keepAlive = timers.scheduleWithFixedDelay(() -> keepAlive(leaseId), every, every,
                TimeUnit.MILLISECONDS);
        // a fresh key: the put's revision is its create revision
        seen.accept(put.getHeader().getRevision());
        return new Ticket(key, put.getHeader().getRevision(), leaseId, keepAlive);
    }

    /** Keeps the ticket's lease alive without blocking the timer thread; a lost lease makes the waiters look again. */
    private void keepAlive(long leaseId) {
        leases.keepAliveOnce(leaseId).whenComplete((alive, failure) -> {
            if ((failure != null && Replies.isLeaseNotFound(failure)) || (alive != null && alive.getTTL() <= 0)) {
                wake.run();
            }
        });
    }

    private void dropTicket() {
        if (ticket != null) {
            ticket.keepAlive().cancel(false);
            giveBack.accept(ticket.leaseId());
            ticket = null;
        }
    }

    /** Watches {@code key} for its delete after {@code revision}, replacing the previous watch. */
    private void watchForDelete(ByteSequence key, long revision) {
        closeWatcher();
        try {
            watcher = watches.watch(key, WatchOption.builder().withNoPut(true).withRevision(revision + 1).build(),
                    Watch.listener(response -> {
                        seen.accept(response.getHeader().getRevision());
                        if (response.getEvents().stream()
                                .anyMatch(event -> event.getEventType() == WatchEvent.EventType.DELETE)) {
                            wake.run();
                        }
                    }, failure -> wake.run())); // look again at once; the backoff takes over
        } catch (RuntimeException e) {
            watcher = null; // the client is closing: the backoff takes over
        }
    }

    private void closeWatcher() {
        if (watcher != null) {
            try {
                watcher.close();
            } catch (RuntimeException e) {
                // the client may be closed already; the watch went with it
            }
            watcher = null;
        }
    }
}
