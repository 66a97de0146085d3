package dev.fencing.etcd;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.etcd.internal.Replies;
import dev.fencing.etcd.internal.ServerTtl;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Duration;

/** One holder: its lock key, owner id and etcd lease. */
final class EtcdLease extends AbstractLease {
    private final EtcdLockProvider provider;
    private final MonotonicClock clock;
    private final ByteSequence key;
    private final ByteSequence owner;
    private long leaseId; // guarded by this
    private long leaseTtlSeconds; // guarded by this
    /** The start of the request that last set the etcd lease's TTL: its grant or last keep-alive. */
    private long leaseRefreshedAtNanos; // guarded by this

    EtcdLease(EtcdLockProvider provider, MonotonicClock clock, FencingListener listener, FencingToken token,
            String ownerId, ByteSequence key, ByteSequence owner, long leaseId, long leaseTtlSeconds,
            long requestedAtNanos, Duration ttl) {
        super(token, ownerId, requestedAtNanos, ttl, clock, listener);
        this.provider = provider;
        this.clock = clock;
        this.key = key;
        this.owner = owner;
        this.leaseId = leaseId;
        this.leaseTtlSeconds = leaseTtlSeconds;
        this.leaseRefreshedAtNanos = requestedAtNanos;
    }

    private Cmp[] stillMine() {
        return new Cmp[] {
            new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(token().value())),
            new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(owner))
        };
    }

    @Override
    protected synchronized boolean doRenew(Duration ttl) {
        long wanted = ServerTtl.seconds(ttl);
        long seenBefore = provider.revisions.newest(); // a linearizable answer to this renewal is at least this
        try {
            if (wanted > leaseTtlSeconds) {
                return moveToLongerLease(wanted);
            }
            long sentAt = clock.nanoTime();
            LeaseKeepAliveResponse alive;
            try {
                alive = Replies.await(provider.leases.keepAliveOnce(leaseId), timeoutFor(ttl));
                provider.seen(alive.getHeader().getRevision()); // possibly a lagging member's: only recorded
                if (alive.getTTL() <= 0) {
                    return false;
                }
            } catch (Replies.Unclear e) {
                if (Replies.isLeaseNotFound(e.getCause())) {
                    return false; // expired or revoked: the key went with it
                }
                throw provider.unreachable(resource(), "the lease keep-alive", e);
            }
            // the lease lives; is the key still this holder's (not deleted by someone else)?
            GetResponse got = Replies.await(provider.kv.get(key), timeoutFor(ttl));
            long answered = got.getHeader().getRevision();
            provider.seen(answered);
            if (answered < seenBefore) {
                throw wentBack(answered, seenBefore);
            }
            boolean mine = got.getKvs().stream().anyMatch(held -> held.getCreateRevision() == token().value()
                    && held.getValue().equals(owner) && held.getLease() == leaseId);
            if (!mine) {
                return false;
            }
            long keptAliveIn = alive.getHeader().getRaftTerm();
            long readIn = got.getHeader().getRaftTerm();
            if (keptAliveIn != readIn) {
                throw unconfirmed(keptAliveIn, readIn);
            }
            leaseRefreshedAtNanos = sentAt;
            return true;
        } catch (Replies.Unclear e) {
            throw provider.unreachable(resource(), "the renewal", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw LockUnavailableException.unreachable(resource(), "interrupted while renewing", e);
        }
    }

    /**
     * A keep-alive and a linearizable read answered in different raft terms: etcd renews leases in
     * the leader's memory, not through the log, and a leader that does not know yet that it was
     * deposed answers keep-alives from its own lessor (etcd before 3.4.25 and 3.5.8) — a renewal the
     * new leader never saw, and the key is still there for the read until the new leader's copy of
     * the lease runs out. Only a read in the keep-alive's own term proves that term's leader still
     * led after it; otherwise the renewal counts for nothing (the lease keeps its earlier deadline).
     */
    private LockUnavailableException unconfirmed(long keptAliveIn, long readIn) {
        return LockUnavailableException.unreachable(resource(), "etcd at " + provider.target + " answered the"
                + " renewal's keep-alive in raft term " + keptAliveIn + " and its read in term " + readIn + ": a"
                + " keep-alive a deposed leader answered would not count at the new leader, so this renewal is not"
                + " counted and the lease keeps its earlier deadline; the next renewal asks again", null);
    }

    /**
     * The linearizable read of a renewal answered with a revision below one seen before it was
     * sent: etcd was restored from an older backup. The lease is lost (the key it finds, if
     * any, is the backup's) and its etcd lease revoked, so the restored key goes too.
     */
    private LeaseLostException wentBack(long answered, long seenBefore) {
        String reason = "etcd at " + provider.target + " went back: the renewal was answered at revision " + answered
                + " after this provider had seen revision " + seenBefore + " — the cluster was restored from an"
                + " older snapshot or backup, and what it says about this lease is the backup's";
        provider.giveBack(leaseId, leaseTtlSeconds);
        markLost(reason, null);
        return LeaseLostException.of(token(), reason);
    }

    /** etcd cannot lengthen a lease's TTL: a longer renewal moves the key to a new lease, keeping its create revision. */
    private boolean moveToLongerLease(long wantedSeconds) throws Replies.Unclear, InterruptedException {
        long sentAt = clock.nanoTime();
        LeaseGrantResponse grant = Replies.await(provider.leases.grant(wantedSeconds), provider.requestTimeout);
        TxnResponse moved;
        try {
            moved = Replies.await(provider.kv.txn().If(stillMine())
                    .Then(Op.put(key, owner, PutOption.builder().withLeaseId(grant.getID()).build()))
                    .commit(), provider.requestTimeout);
        } catch (Replies.Unclear | InterruptedException e) {
            // the key may be on either lease now: keep both; the next renewal settles it
            throw e;
        }
        provider.seen(grant.getHeader().getRevision());
        provider.seen(moved.getHeader().getRevision());
        if (!moved.isSucceeded()) {
            provider.giveBack(grant.getID(), grant.getTTL());
            return false;
        }
        provider.giveBack(leaseId, leaseTtlSeconds);
        leaseId = grant.getID();
        leaseTtlSeconds = grant.getTTL();
        leaseRefreshedAtNanos = sentAt;
        return true;
    }

    /** A renewal answers within a third of the TTL or the request timeout, whichever is shorter (at least 100 ms). */
    private Duration timeoutFor(Duration ttl) {
        Duration third = ttl.dividedBy(3);
        Duration bounded = third.compareTo(provider.requestTimeout) < 0 ? third : provider.requestTimeout;
        return bounded.compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100) : bounded;
    }

    @Override
    protected synchronized boolean doRelease() {
        boolean deletedHere = false;
        try {
            // not cut short by an interrupt (a try-with-resources closing in an interrupted thread):
            // the lock is given back and the thread keeps its interrupt status
            TxnResponse deleted = Replies.awaitUninterruptibly(provider.kv.txn().If(stillMine())
                    .Then(Op.delete(key, DeleteOption.DEFAULT)).commit(), provider.requestTimeout);
            provider.seen(deleted.getHeader().getRevision());
            deletedHere = deleted.isSucceeded();
            return deletedHere;
        } catch (Replies.Unclear e) {
            throw provider.unreachable(resource(), "the release transaction (the lease is revoked, so the key goes with it)",
                    e);
        } finally {
            if (deletedHere) {
                // its key is gone, by this holder's own delete: the lease holds nothing and can serve the next grant
                provider.spareLeases.offer(new SpareLeases.Spare(leaseId, leaseTtlSeconds, leaseRefreshedAtNanos));
            } else {
                provider.giveBack(leaseId, leaseTtlSeconds);
            }
            provider.signalRelease(resource());
        }
    }
}
