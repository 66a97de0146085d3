package dev.fencing.redis;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.redis.internal.DriftMargin;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A held lock key: renewed and released by owner-checked scripts. */
final class RedisLease extends AbstractLease {
    private final RedisLockProvider provider;
    private final String lockKey;

    RedisLease(RedisLockProvider provider, MonotonicClock clock, FencingListener listener, FencingToken token,
            String ownerId, String lockKey, long requestedAtNanos, Duration ttl) {
        super(token, ownerId, requestedAtNanos, ttl.minus(DriftMargin.of(ttl, provider.driftFactor)), clock, listener);
        this.provider = provider;
        this.lockKey = lockKey;
    }

    @Override
    protected Duration validityOf(Duration ttl) {
        return ttl.minus(DriftMargin.of(ttl, provider.driftFactor));
    }

    /**
     * Waits for the renew script at most a third of {@code ttl} (and never longer than the
     * command timeout), so that the watchdog, which renews every third of the TTL, can try
     * again before the lease lapses. No answer by then is unclear, not lost:
     * {@link LockUnavailableException}, and the lease's validity runs on unextended.
     */
    @Override
    protected boolean doRenew(Duration ttl) {
        provider.requireTtlAboveMinimum(ttl);
        Duration third = ttl.dividedBy(3);
        Duration bound = third.compareTo(provider.commandTimeout) < 0 ? third : provider.commandTimeout;
        try {
            return RedisLockProvider.RENEW.runAsync(provider.backend.asyncScripting(),
                    new String[] {lockKey, provider.tokenKey(resource())}, ownerId(), Long.toString(ttl.toMillis()),
                    provider.tokenIdleExpiryMillis)
                    .get(bound.toNanos(), TimeUnit.NANOSECONDS) == 1;
        } catch (RedisException e) {
            throw provider.unreachable(resource(), "the renew script", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RedisException redisFailure) {
                throw provider.unreachable(resource(), "the renew script", redisFailure);
            }
            throw LockUnavailableException.unreachable(resource(), "the renew script on Redis at " + provider.target
                    + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw LockUnavailableException.unreachable(resource(), "Redis at " + provider.target + " did not answer the"
                    + " renew script within " + bound.toMillis() + " ms (a third of the TTL, at most the command"
                    + " timeout); the lease is not known to be lost and stays valid until its current validity"
                    + " ends", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw LockUnavailableException.unreachable(resource(), "interrupted while waiting for the renew"
                    + " script on Redis at " + provider.target + "; the lease is not known to be lost", e);
        }
    }

    @Override
    protected boolean doRelease() {
        try {
            // not cut short by an interrupt (a try-with-resources closing in an interrupted thread):
            // the lock is given back and the thread keeps its interrupt status
            return RedisLockProvider.RELEASE.runUninterruptibly(provider.backend.asyncScripting(), provider.commandTimeout,
                    new String[] {lockKey}, ownerId(), provider.keys.releaseChannel(resource()), resource()) == 1;
        } catch (RedisException e) {
            throw provider.unreachable(resource(), "the release script", e);
        }
    }

    /** Gives the lock back before the lease was handed out (the caller never sees it). */
    void releaseQuietly() {
        try {
            doRelease();
        } catch (LockUnavailableException e) {
            // the key expires with its TTL
        }
    }
}
