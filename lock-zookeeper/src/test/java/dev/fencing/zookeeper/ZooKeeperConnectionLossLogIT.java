package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.testkit.LogLines;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connection cut past the session (as a paused process sees it when it wakes) is told once, at
 * WARN, in the toolkit's words — what was lost and what happens next — and once more when the
 * session is found ended; not once per failed background operation.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperConnectionLossLogIT {

    private static final Duration SESSION = Duration.ofSeconds(4);

    private static List<String> providerWarnings(LogLines log) {
        return log.warnings().stream().filter(line -> line.contains(ZooKeeperLockProvider.class.getName())).toList();
    }

    @Test
    void aCutPastTheSessionIsOneWarningForTheLossAndOneForTheSession() throws InterruptedException {
        String connectString = TestServers.zooKeeper().connectString();
        int port = Integer.parseInt(connectString.substring(connectString.lastIndexOf(':') + 1));
        String resource = "log-once-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        try (PartitionProxy link = PartitionProxy.start("127.0.0.1", port)) {
            String target = "127.0.0.1:" + link.port();
            try (LogLines log = LogLines.containing("ZooKeeper at " + target);
                    ZooKeeperLockProvider provider = ZooKeeperLockProvider.builder(target).sessionTimeout(SESSION)
                            .connectTimeout(Duration.ofSeconds(30)).build()) {
                assertThat(log.showWarningsOf(ZooKeeperLockProvider.class.getName()))
                        .as("this build logs through slf4j-simple").isTrue();
                log.showWarningsOf(AbstractLease.class.getName());
                Lease lease = provider.acquire(resource, LeaseOptions.builder().ttl(Duration.ofSeconds(6)).autoRenew(true)
                        .build());
                link.cut();
                await().atMost(SESSION.multipliedBy(5)).until(() -> !lease.isValid());
                await().atMost(SESSION.multipliedBy(5)).until(() -> providerWarnings(log).size() >= 2);
                link.heal();
                await().atMost(Duration.ofSeconds(30)).until(() -> log.lines().stream()
                        .anyMatch(line -> line.contains("Reconnected to ZooKeeper at " + target)));

                List<String> told = providerWarnings(log);
                assertThat(told).as("the provider's WARN lines about %s", target).hasSize(2);
                // how many leases it names depends on whether the watchdog gave the lease up first
                assertThat(told.get(0)).contains("was lost").containsPattern("[01] lease\\(s\\) held here");
                assertThat(told.get(1)).contains("ended").contains("lost");
                assertThat(log.warnings()).as("besides, the watchdog's first failed renewal, once: %s", log.warnings())
                        .hasSizeBetween(2, 3);
                assertThat(log.lines()).as("no stack trace").noneMatch(line -> line.startsWith("\tat "));
            }
        }
    }
}
