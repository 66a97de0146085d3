package dev.fencing.zookeeper;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import java.time.Duration;

/** The next client's side of a takeover in the partition tests: waiting in line for the lock. */
final class Takeover {

    private Takeover() {}

    /**
     * The lock, waiting in line for up to 30 s. An attempt that fails because the waiter's own
     * session expired (a loaded machine, seen once on CI: the contender znode's create answered
     * SessionExpired) is tried again on the new session until the 30 s are up.
     */
    static Lease waitFor(ZooKeeperLockProvider provider, String resource) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            try {
                return provider.acquire(resource, LeaseOptions.ofDefaults().withWaitTimeout(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + resource, e);
            } catch (LockUnavailableException e) {
                if (System.nanoTime() >= deadline) {
                    throw e;
                }
            }
        }
    }
}
