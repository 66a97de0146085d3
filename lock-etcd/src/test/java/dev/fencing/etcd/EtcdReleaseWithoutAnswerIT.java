package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.EtcdTestServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Written by an adversary (it failed before the fix): "every lease ends in exactly one onReleased or onLost". A release that
 * cannot reach etcd (frozen member, or a provider already closed) flips the lease to RELEASED and
 * throws from {@code doRelease()} before either listener call: the lease ends with no event at all,
 * and nothing can report it later (markLost needs ACTIVE), although another client takes the lock
 * over once the TTL runs out.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdReleaseWithoutAnswerIT {

    private static String resource(String name) {
        return "no-answer-" + name + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
    }

    /**
     * A provider whose requests give up after 1 s, so a frozen member's release ends quickly. A
     * loaded machine (a parallel build) can take longer than that for a new client's first
     * answer, which build() waits for: the build is tried again until it connects.
     */
    private static EtcdLockProvider provider(String[] endpoints, RecordingListener events) {
        return await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> {
                    EtcdLockProvider.Builder builder = EtcdLockProvider.builder(endpoints)
                            .requestTimeout(Duration.ofSeconds(1));
                    return events == null ? builder.build() : builder.listener(events).build();
                }, provider -> true);
    }

    @Test
    void aReleaseAgainstAFrozenMemberEndsTheLeaseWithExactlyOneEvent() {
        EtcdTestServer etcd = EtcdTestServer.launch();
        try {
            String[] endpoints = etcd.endpoints().toArray(String[]::new);
            RecordingListener events = new RecordingListener();
            String resource = resource("frozen");
            try (EtcdLockProvider a = provider(endpoints, events); EtcdLockProvider b = provider(endpoints, null)) {
                Lease lease = a.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow();
                etcd.pause();
                try {
                    assertThatThrownBy(lease::release).isInstanceOf(LockUnavailableException.class);
                } finally {
                    etcd.resume();
                }
                // another client takes over once the TTL has run out: the lease really ended
                Lease taker = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                        .until(() -> b.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(10))),
                                Optional::isPresent).orElseThrow();
                lease.close(); // a second chance to report: a no-op
                assertThat(lease.isValid()).isFalse();
                System.out.println("frozen-release endings of " + lease.token() + ": " + events.endingsOf(lease)
                        + "; taken over with " + taker.token());
                assertThat(events.endingsOf(lease)).as("endings of a lease whose release could not reach etcd,"
                        + " taken over since by %s", taker.token()).hasSize(1);
                taker.release();
            }
        } finally {
            etcd.stop();
        }
    }

    @Test
    void aReleaseAfterTheProviderClosedEndsTheLeaseWithExactlyOneEvent() {
        EtcdTestServer etcd = EtcdTestServer.launch();
        try {
            String[] endpoints = etcd.endpoints().toArray(String[]::new);
            RecordingListener events = new RecordingListener();
            String resource = resource("closed");
            Lease lease;
            EtcdLockProvider a = provider(endpoints, events);
            lease = a.tryAcquire(resource, LeaseOptions.builder().ttl(Duration.ofSeconds(2)).autoRenew(true).build())
                    .orElseThrow();
            a.close();
            Throwable thrown = null;
            try {
                lease.release();
            } catch (RuntimeException e) {
                thrown = e;
            }
            try (EtcdLockProvider b = provider(endpoints, null)) {
                Lease taker = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                        .until(() -> b.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(10))),
                                Optional::isPresent).orElseThrow();
                System.out.println("release-after-close threw " + thrown + "; endings of " + lease.token()
                        + ": " + events.endingsOf(lease) + "; taken over with " + taker.token());
                assertThat(events.endingsOf(lease)).as("endings of a lease released after its provider closed"
                        + " (release threw %s), taken over since by %s", thrown, taker.token()).hasSize(1);
                taker.release();
            }
        } finally {
            etcd.stop();
        }
    }
}
