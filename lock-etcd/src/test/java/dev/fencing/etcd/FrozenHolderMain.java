package dev.fencing.etcd;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A lock holder in a process of its own, for {@link EtcdFaultsIT}: acquires with auto-renewal,
 * prints {@code GRANTED <token>}, and prints {@code LOST <reason>} when its listener hears the
 * lease was lost; then checks the lease and prints {@code REFUSED <exception>}. The test freezes
 * the whole process with SIGSTOP, as a long GC pause would.
 *
 * <p>Arguments: endpoint, resource, TTL in milliseconds.
 */
public final class FrozenHolderMain {

    private FrozenHolderMain() {}

    public static void main(String[] args) throws InterruptedException {
        CountDownLatch lost = new CountDownLatch(1);
        FencingListener listener = new FencingListener() {
            @Override
            public void onLost(Lease lease, String reason, Throwable cause) {
                System.out.println("LOST " + reason);
                System.out.flush();
                lost.countDown();
            }
        };
        EtcdLockProvider provider = EtcdLockProvider.builder(args[0]).listener(listener).build();
        LeaseOptions options = LeaseOptions.builder().ttl(Duration.ofMillis(Long.parseLong(args[2]))).autoRenew(true)
                .build();
        Lease lease = null;
        // a loaded machine's etcd may time a request out (its WAL fsync waits): try again, saying so
        for (long deadline = System.nanoTime() + Duration.ofSeconds(50).toNanos(); lease == null; ) {
            try {
                lease = provider.tryAcquire(args[1], options).orElseThrow(() -> new IllegalStateException(
                        "the lock is held by someone else"));
            } catch (dev.fencing.core.LockUnavailableException e) {
                System.out.println("RETRY " + e.getMessage());
                System.out.flush();
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
        System.out.println("GRANTED " + lease.token().value());
        System.out.flush();
        lost.await();
        try {
            lease.requireValidFor(Duration.ZERO);
            System.out.println("STILL-VALID");
        } catch (RuntimeException e) {
            System.out.println("REFUSED " + e.getClass().getSimpleName());
        }
        System.out.flush();
        provider.close();
    }
}
