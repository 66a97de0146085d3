package dev.fencing.zookeeper;

import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * This process's place in one resource's ZooKeeper queue while some of its threads wait for the
 * resource: one ephemeral sequential znode (a ticket) stands in line for all of them, and watches
 * only its predecessor, so a release wakes one process — the next in line — not every waiter
 * (no herd). When the ticket reaches the head, the next attempt of any local waiter claims it:
 * it writes its owner id into the ticket, which becomes the lease's znode, and the ticket's
 * {@code czxid} the token. The provider shares one queue among its waiters with
 * {@link dev.fencing.core.spi.SharedWatches}: the last waiter to stop waiting closes it, which
 * deletes an unclaimed ticket.
 *
 * <p>Thread-safe; one ZooKeeper round trip at a time per resource and process.
 */
final class WaitQueue {

    /** The outcome of a waiter's attempt: the claimed ticket, or nothing to claim yet. */
    record Claim(Znodes.Created ticket, Stat stat) {}

    private final Znodes znodes;
    private final String parent;
    private final Watcher predecessorGone;
    private boolean closed;
    private Znodes.@Nullable Created ticket;

    /**
     * @param wake called (on ZooKeeper's event thread) when the ticket's predecessor is deleted
     */
    WaitQueue(Znodes znodes, String parent, Runnable wake) {
        this.znodes = znodes;
        this.parent = parent;
        this.predecessorGone = event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                wake.run();
            }
        };
    }

    /**
     * The last local waiter left (see {@link dev.fencing.core.spi.SharedWatches}): deletes an
     * unclaimed ticket; later polls claim nothing.
     */
    synchronized void close() {
        closed = true;
        if (ticket != null) {
            znodes.deleteInBackground(ticket.path());
            ticket = null;
        }
    }

    /**
     * One attempt of a local waiter: puts a ticket in line if there is none, and claims it for
     * {@code ownerId} if it is at the head; otherwise watches its predecessor.
     *
     * @return the claimed ticket, or empty if it is not this process's turn yet
     * @throws Exception what Curator throws; the ticket, if any, stays in line
     */
    synchronized Optional<Claim> poll(String ownerId) throws Exception {
        if (closed) {
            return Optional.empty();
        }
        for (int tries = 0; tries < 3; tries++) {
            if (ticket == null) {
                ticket = znodes.create(parent, "");
            }
            List<String> queue = znodes.queue(parent);
            String name = ticket.path().substring(parent.length() + 1);
            int position = queue.indexOf(name);
            if (position < 0 || znodes.sessionId() != ticket.sessionId()) {
                ticket = null; // its session ended, and the ticket with it: stand in line again
                continue;
            }
            if (position == 0) {
                Optional<Stat> written;
                try {
                    written = znodes.write(ticket.path(), ownerId);
                } catch (Znodes.WentBackwards e) {
                    znodes.deleteInBackground(ticket.path()); // not handed out: stand in line again later
                    ticket = null;
                    throw e;
                }
                if (written.isEmpty()) {
                    ticket = null;
                    continue;
                }
                Znodes.Created claimed = ticket;
                ticket = null;
                return Optional.of(new Claim(claimed, written.get()));
            }
            if (znodes.watch(parent + "/" + queue.get(position - 1), predecessorGone)) {
                return Optional.empty();
            }
            tries--; // the predecessor left meanwhile: look again (the queue only shortens ahead of the ticket)
        }
        return Optional.empty();
    }
}
