package dev.fencing.etcd;

import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.etcd.internal.Replies;
import dev.fencing.etcd.internal.ServerTtl;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One try of an {@link EtcdLockProvider} to take a lock key, and the token it carries:
 *
 * <ol>
 *   <li>an etcd lease for the holder — a spare one granted ahead if young enough, else a fresh
 *       grant;
 *   <li>one transaction: if the key does not exist ({@code create_revision == 0}) put the owner id
 *       on it with the lease, then read it; else read it;
 *   <li>the key read back is this attempt's (owner id and lease) or the lock is held elsewhere; the
 *       token is the key's create revision, refused if it is not above every revision seen before
 *       the transaction was sent (etcd went back).
 * </ol>
 *
 * Whatever an attempt may have taken and does not hand out — a lease, a key on it — is given back
 * by revoking the lease: on a refusal, an unclear reply, an interrupt, or a provider that closed
 * meanwhile. Thread-safe.
 */
final class LockKeyAttempt {

    /** Revokes a lease in the background until it would have expired ({@code ttlSeconds} from now). */
    @FunctionalInterface
    interface GiveBack {
        void revoke(long leaseId, long ttlSeconds);
    }

    /** A lock key this attempt created: the holder's owner id, the etcd lease under the key, and the token. */
    record Taken(long token, String ownerId, ByteSequence key, ByteSequence owner, long leaseId, long leaseTtlSeconds,
            long validFromNanos) {}

    private final KV kv;
    private final Lease leases;
    private final SpareLeases spareLeases;
    private final EtcdKeys keys;
    private final Duration requestTimeout;
    private final String target;
    private final EtcdRevisions revisions;
    private final GiveBack giveBack;
    private final BooleanSupplier closed;

    /**
     * @param target the endpoints, for messages
     * @param closed whether the provider closed: a key taken after that is given back
     */
    LockKeyAttempt(KV kv, Lease leases, SpareLeases spareLeases, EtcdKeys keys, Duration requestTimeout, String target,
            EtcdRevisions revisions, GiveBack giveBack, BooleanSupplier closed) {
        this.kv = kv;
        this.leases = leases;
        this.spareLeases = spareLeases;
        this.keys = keys;
        this.requestTimeout = requestTimeout;
        this.target = target;
        this.revisions = revisions;
        this.giveBack = giveBack;
        this.closed = closed;
    }

    /**
     * Tries once to take {@code resource}'s lock key for {@code ttl}.
     *
     * @return the key taken, or empty if it is held elsewhere (or the thread was interrupted, its
     *     flag set again)
     * @throws LockUnavailableException if etcd did not answer, or went back (a restore)
     */
    Optional<Taken> attempt(String resource, Duration ttl, long requestedAtNanos) {
        return attempt(resource, ttl, requestedAtNanos, true);
    }

    private Optional<Taken> attempt(String resource, Duration ttl, long requestedAtNanos, boolean spareAllowed) {
        String ownerId = OwnerIds.random();
        ByteSequence key = keys.lockKeyBytes(resource);
        ByteSequence owner = EtcdKeys.bytes(ownerId);
        long ttlSeconds = ServerTtl.seconds(ttl);

        long leaseId;
        long leaseTtlSeconds;
        long validFromNanos; // when the etcd lease's TTL started, at the latest: the local validity counts from here
        Optional<SpareLeases.Spare> spare = spareAllowed
                ? spareLeases.take(ttlSeconds, maxSpareAgeNanos(ttl)) : Optional.empty();
        if (spare.isPresent()) {
            leaseId = spare.get().leaseId();
            leaseTtlSeconds = spare.get().ttlSeconds();
            validFromNanos = spare.get().requestedAtNanos();
        } else {
            CompletableFuture<LeaseGrantResponse> granting = leases.grant(ttlSeconds);
            LeaseGrantResponse grant;
            try {
                grant = Replies.await(granting, requestTimeout);
            } catch (InterruptedException e) {
                // a lease granted after all holds no key; revoke it rather than let it run out
                granting.thenAccept(late -> giveBack.revoke(late.getID(), late.getTTL()));
                Thread.currentThread().interrupt();
                return Optional.empty();
            } catch (Replies.Unclear e) {
                granting.thenAccept(late -> giveBack.revoke(late.getID(), late.getTTL()));
                throw unreachable(target, resource, "the lease grant", e);
            }
            revisions.seen(grant.getHeader().getRevision());
            leaseId = grant.getID();
            leaseTtlSeconds = grant.getTTL();
            validFromNanos = requestedAtNanos;
        }

        // only revisions seen before the transaction was sent must be below its own (a concurrent
        // attempt's answer may carry a newer revision and arrive first)
        long seenBeforeSending = revisions.newest();
        CompletableFuture<TxnResponse> committing = kv.txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(key, owner, PutOption.builder().withLeaseId(leaseId).build()), Op.get(key, GetOption.DEFAULT))
                .Else(Op.get(key, GetOption.DEFAULT))
                .commit();
        TxnResponse txn;
        try {
            txn = Replies.await(committing, requestTimeout);
        } catch (InterruptedException e) {
            // the transaction may have created the key: revoking the lease deletes it, or makes the put fail
            giveBack.revoke(leaseId, leaseTtlSeconds);
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (Replies.Unclear e) {
            giveBack.revoke(leaseId, leaseTtlSeconds);
            if (spare.isPresent() && Replies.isLeaseNotFound(e.getCause())) {
                // a clear refusal, nothing applied: the spare's lease is gone (etcd restarted from
                // older data, or someone revoked it); one more try on a lease granted now
                return attempt(resource, ttl, requestedAtNanos, false);
            }
            throw unreachable(target, resource, "the acquire transaction (its lease is revoked, so a key it may have"
                    + " created goes with it)", e);
        }

        // either branch ends in a read of the key: ours if the put ran (or ran on an earlier, retried send)
        List<KeyValue> read = txn.getGetResponses().isEmpty() ? List.of() : txn.getGetResponses().get(0).getKvs();
        Optional<KeyValue> mine = read.stream()
                .filter(held -> held.getValue().equals(owner) && held.getLease() == leaseId).findFirst();
        if (mine.isEmpty()) {
            // held by another owner: this attempt's lease holds nothing
            revisions.heldAt(resource, txn.getHeader().getRevision());
            giveBack.revoke(leaseId, leaseTtlSeconds);
            return Optional.empty();
        }
        if (closed.getAsBoolean()) {
            // closed while the transaction was on its way: nobody will be handed this lease
            giveBack.revoke(leaseId, leaseTtlSeconds);
            return Optional.empty();
        }
        long token = mine.get().getCreateRevision();
        revisions.seen(txn.getHeader().getRevision());
        if (token <= seenBeforeSending) {
            giveBack.revoke(leaseId, leaseTtlSeconds);
            throw LockUnavailableException.unreachable(resource, "etcd at " + target + " went back: it granted token "
                    + token + " after this provider had seen revision " + seenBeforeSending + " — the cluster was"
                    + " restored from an older snapshot or backup and hands out tokens already handed out. The grant"
                    + " is given back, and this provider grants nothing until etcd's revision passes "
                    + seenBeforeSending + "; restore with 'etcdutl snapshot restore --bump-revision' (etcd 3.5+)"
                    + " above every token issued, see EtcdLockProvider's Javadoc", null);
        }
        return Optional.of(new Taken(token, ownerId, key, owner, leaseId, leaseTtlSeconds, validFromNanos));
    }

    /**
     * How old a spare lease may be and still be used: its age comes off the new lease's validity,
     * so at most a tenth of the TTL, and at most a second.
     */
    private static long maxSpareAgeNanos(Duration ttl) {
        return Math.min(ttl.toNanos() / 10, TimeUnit.SECONDS.toNanos(1));
    }

    /** The failure of a request etcd at {@code target} did not answer. */
    static LockUnavailableException unreachable(String target, String resource, String what, Throwable cause) {
        return LockUnavailableException.unreachable(resource, "etcd at " + target + " did not answer " + what + ": "
                + cause.getMessage(), cause);
    }
}
