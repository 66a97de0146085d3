package dev.fencing.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/** The few ZooKeeper operations of the recipe, on one Curator client; every method may throw what Curator throws. */
final class Znodes {

    /** A contender's znode as its create reply described it. */
    record Created(String path, long czxid, long sessionId) {}

    /**
     * ZooKeeper's history went back: a write got a zxid at or below one this client had seen (a
     * server or ensemble restored from an older snapshot or backup).
     */
    static final class WentBackwards extends Exception {
        private static final long serialVersionUID = 1L;

        WentBackwards(String message) {
            super(message);
        }
    }

    private final CuratorFramework client;
    /**
     * The newest zxid any answer showed this client: the last zxid of every reply (any handle
     * Curator made), and the czxid, mzxid and pzxid of every stat. A write's zxid must be above
     * it; a sync'd read's reply must not be below it.
     */
    private final java.util.concurrent.atomic.AtomicLong newestZxid = new java.util.concurrent.atomic.AtomicLong();

    /** False only in the deliberately broken variant the partition tests must catch. */
    private final boolean syncBeforeConfirming;

    Znodes(CuratorFramework client) {
        this(client, true);
    }

    Znodes(CuratorFramework client, boolean syncBeforeConfirming) {
        this.client = client;
        this.syncBeforeConfirming = syncBeforeConfirming;
    }

    CuratorFramework client() {
        return client;
    }

    /**
     * Creates an ephemeral sequential contender under {@code parent} (and the parent as a container
     * if missing) holding {@code data}. Curator's protected mode names it {@code _c_<uuid>-lock-N}: a
     * create retried after a lost reply first looks for a child with that uuid instead of creating a
     * second one, and a create that fails for good has Curator delete such a child in the background.
     *
     * <p>A znode found that way comes back without its stat (Curator fills the caller's only from a
     * create reply), so it is read here: the czxid and the owning session are always the znode's
     * own, as ZooKeeper recorded them.
     *
     * @throws WentBackwards if the znode's czxid is not above every czxid an earlier create of this
     *     client got (the znode is deleted in the background)
     * @throws KeeperException.NoNodeException if the znode found after a lost reply is gone before
     *     its stat could be read (its session ended, and took it along); if that read fails
     *     otherwise, the znode is deleted in the background before the failure is thrown
     */
    Created create(String parent, String data) throws Exception {
        // only answers seen before this create was sent must be older (a concurrent one's may come first)
        long seenBeforeSending = newestZxid();
        Created created = createProtected(parent, data);
        seen(created.czxid());
        if (created.czxid() <= seenBeforeSending) {
            deleteInBackground(created.path());
            throw wentBack("a znode was created with zxid", created.czxid(), seenBeforeSending);
        }
        return created;
    }

    /** The newest zxid seen so far, the current handle's last one included. */
    long newestZxid() {
        seen(lastZxid());
        return newestZxid.get();
    }

    /** Raises the high-water mark to {@code zxid}. */
    void seen(long zxid) {
        newestZxid.accumulateAndGet(zxid, Math::max);
    }

    private void seen(Stat stat) {
        seen(Math.max(stat.getCzxid(), Math.max(stat.getMzxid(), stat.getPzxid())));
    }

    /** The last zxid the client's current handle saw (0 without one). */
    private long lastZxid() {
        try {
            return ZxidZooKeeper.lastZxidOf(client.getZookeeperClient().getZooKeeper());
        } catch (Exception e) {
            return 0; // no handle now (closed, or being made again): nothing seen through it
        }
    }

    static WentBackwards wentBack(String what, long zxid, long seen) {
        return new WentBackwards("ZooKeeper went back: " + what + " 0x" + Long.toHexString(zxid)
                + " after this provider had seen zxid 0x" + Long.toHexString(seen) + " — the server or ensemble was"
                + " restored from an older snapshot or backup and hands out tokens already handed out. The grant is"
                + " given back, and this provider grants nothing until ZooKeeper's zxid passes 0x"
                + Long.toHexString(seen) + "; see ZooKeeperLockProvider's Javadoc");
    }

    private Created createProtected(String parent, String data) throws Exception {
        Stat stat = new Stat();
        String path = client.create().storingStatIn(stat).creatingParentContainersIfNeeded().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(parent + "/" + ZooKeeperPaths.NODE_NAME, data.getBytes(StandardCharsets.UTF_8));
        if (stat.getCzxid() == 0) { // found by its uuid after a lost reply: no create reply filled the stat
            try {
                stat = client.checkExists().forPath(path);
            } catch (Exception e) {
                deleteInBackground(path); // Curator counts the create as done: it would not clean up
                throw e;
            }
            if (stat == null) {
                throw new KeeperException.NoNodeException(path);
            }
        }
        seen(lastZxid());
        return new Created(path, stat.getCzxid(), stat.getEphemeralOwner());
    }

    /** The contenders of {@code parent} in queue order (lowest sequence first); empty if the parent is gone. */
    List<String> queue(String parent) throws Exception {
        try {
            Stat stat = new Stat();
            List<String> children = client.getChildren().storingStatIn(stat).forPath(parent);
            seen(stat);
            seen(lastZxid());
            return children.stream().sorted(Comparator.comparingLong(ZooKeeperPaths::sequenceOf)).toList();
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Sets {@code watcher} on {@code path} if it exists; false if it is already gone. */
    boolean watch(String path, Watcher watcher) throws Exception {
        return client.checkExists().usingWatcher(watcher).forPath(path) != null;
    }

    /**
     * The stat of {@code path} as the leader has it, if it exists: a {@code sync} and an
     * {@code exists}, sent one after the other on the client's connection without waiting. The
     * server runs a session's requests in order, and answers a sync only once it has applied
     * everything the leader had committed when the sync reached the leader; so the exists sees no
     * older state than the leader's at a moment after it was sent — not a follower's own copy,
     * which lags, and goes on answering from before a partition until the follower notices it
     * ({@code syncLimit × tickTime}). A follower cut off from its leader therefore answers neither.
     * The cost is one round trip from the server to the leader; a sync writes nothing to the log.
     *
     * @return the answer: empty if the znode is gone; failed with a {@link KeeperException} if
     *     either request failed (a connection loss, an expired session), with {@link WentBackwards}
     *     if the server answered at a zxid below one seen before it was sent (it was restored from
     *     an older backup); cancelling it only stops the wait
     */
    CompletableFuture<Optional<Stat>> statFromLeader(String path) throws Exception {
        CompletableFuture<Optional<Stat>> answer = new CompletableFuture<>();
        ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
        long seenBeforeSending = newestZxid();
        AtomicInteger synced = new AtomicInteger(KeeperException.Code.OK.intValue());
        if (syncBeforeConfirming) {
            zooKeeper.sync(path, (code, p, context) -> synced.set(code), null);
        }
        // the callbacks run in request order: the sync's has run when the exists' runs
        zooKeeper.exists(path, false, (code, p, context, stat) -> {
            int sync = synced.get();
            long answeredAt = ZxidZooKeeper.lastZxidOf(zooKeeper); // this reply's, or a later one's of the same server
            seen(answeredAt);
            if (stat != null) {
                seen(stat);
            }
            if (sync != KeeperException.Code.OK.intValue() && sync != KeeperException.Code.NONODE.intValue()) {
                answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(sync), path));
            } else if (answeredAt != 0 && answeredAt < seenBeforeSending) {
                // after the sync the server had applied everything committed before this was sent
                answer.completeExceptionally(wentBack("the renewal was answered at zxid", answeredAt,
                        seenBeforeSending));
            } else if (code == KeeperException.Code.OK.intValue()) {
                answer.complete(Optional.of(stat));
            } else if (code == KeeperException.Code.NONODE.intValue()) {
                answer.complete(Optional.empty());
            } else {
                answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(code), path));
            }
        }, null);
        return answer;
    }

    /** The data and stat of {@code path}, if it exists. */
    Optional<String> data(String path, Stat stat) throws Exception {
        try {
            String data = new String(client.getData().storingStatIn(stat).forPath(path), StandardCharsets.UTF_8);
            seen(stat);
            return Optional.of(data);
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes {@code data} to {@code path}; the stat after the write, or empty if the znode is gone.
     *
     * @throws WentBackwards if the write's zxid is not above every zxid seen before it was sent
     */
    Optional<Stat> write(String path, String data) throws Exception {
        long seenBeforeSending = newestZxid();
        Stat stat;
        try {
            stat = client.setData().forPath(path, data.getBytes(StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        }
        seen(stat);
        if (stat.getMzxid() <= seenBeforeSending) {
            throw wentBack("a znode was written with zxid", stat.getMzxid(), seenBeforeSending);
        }
        return Optional.of(stat);
    }

    /**
     * Deletes {@code path} in the background with Curator's guaranteed delete, which retries
     * after a lost connection for as long as the session lives (the session's end deletes an
     * ephemeral znode anyway). Never blocks, never throws: for clean-ups on any thread.
     */
    void deleteInBackground(String path) {
        try {
            client.delete().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            // the client is closed: its session ended, and with it every ephemeral znode it made
        }
    }

    /** What {@link #delete} found. */
    enum Deletion {
        /** This delete removed the znode. */
        DELETED,
        /** The znode was gone before this delete. */
        ALREADY_GONE,
        /**
         * The znode is gone, and this delete's first request may be what removed it: that
         * request's reply was lost (a connection loss), and the retry found nothing.
         */
        GONE_AFTER_A_LOST_REPLY
    }

    /**
     * Deletes {@code path} and waits up to {@code timeout} for the answer, without being cut short
     * by an interrupt (the thread keeps its interrupt status). The first request goes out once, so
     * that its answer tells "deleted now" from "already gone"; if its reply is lost, the delete
     * goes on as Curator's guaranteed delete (as {@link #deleteInBackground}), whose "no such znode"
     * then cannot tell whether the lost request removed it.
     *
     * @throws TimeoutException if no answer came in time (the delete goes on in the background)
     * @throws KeeperException for any other refusal
     */
    Deletion delete(String path, Duration timeout) throws Exception {
        CompletableFuture<Deletion> answer = new CompletableFuture<>();
        client.getZookeeperClient().getZooKeeper().delete(path, -1, (code, p, context) -> {
            if (code == KeeperException.Code.OK.intValue()) {
                answer.complete(Deletion.DELETED);
            } else if (code == KeeperException.Code.NONODE.intValue()) {
                answer.complete(Deletion.ALREADY_GONE);
            } else { // a connection loss or an ended session: the request may or may not have been executed
                deleteAfterALostReply(path, answer);
            }
        }, null);
        return awaitUninterruptibly(answer, timeout);
    }

    private void deleteAfterALostReply(String path, CompletableFuture<Deletion> answer) {
        try {
            client.delete().guaranteed().inBackground((c, event) -> {
                int code = event.getResultCode();
                if (code == KeeperException.Code.OK.intValue()) {
                    answer.complete(Deletion.DELETED);
                } else if (code == KeeperException.Code.NONODE.intValue()) {
                    answer.complete(Deletion.GONE_AFTER_A_LOST_REPLY);
                } else {
                    answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(code), path));
                }
            }).forPath(path);
        } catch (Exception e) {
            answer.completeExceptionally(e); // the client is closed: its session ended and took the znode along
        }
    }

    private static <T> T awaitUninterruptibly(CompletableFuture<T> future, Duration timeout) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The id of the client's current session (0 while it has none). */
    long sessionId() throws Exception {
        return client.getZookeeperClient().getZooKeeper().getSessionId();
    }
}
