package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.ZooKeeperClusterTestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Old state comes back to a whole 3-member ensemble: every member restored from disk backups
 * taken while it was down. A zxid is {@code epoch << 32 | counter}; whether czxids — the tokens —
 * repeat depends on whether the epochs came back with the data:
 *
 * <ul>
 *   <li>with the epoch files restored too, the next leader takes the same epoch the ensemble used
 *       after the backup, and its counter starts low again: the same numbers for other znodes
 *       (equal is not same). A process that saw the newer zxids refuses to grant; a process that
 *       never saw them cannot tell.
 *   <li>with the newer epoch files kept, the next leader's epoch is above every epoch used before,
 *       so every czxid is numerically above every earlier one although the data is older: tokens do
 *       not repeat, and nobody refuses.
 * </ul>
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZooKeeperEnsembleRestoreIT {

    private final ZooKeeperClusterTestServer ensemble = ZooKeeperClusterTestServer.launch(3);
    private final List<ZooKeeperLockProvider> providers = new ArrayList<>();

    @AfterEach
    void close() {
        providers.forEach(ZooKeeperLockProvider::close);
        ensemble.close();
    }

    @Test
    void restoredWithItsEpochsTheEnsembleRepeatsTokensAndAProcessThatSawNewerZxidsRefusesThem() {
        ZooKeeperLockProvider longLived = provider();
        ZooKeeperLockProvider other = provider();
        Lease held = grant(longLived, "held", Duration.ofSeconds(60));
        Path backup = backUpAndRestart();
        // enough writes after the backup that the restored ensemble's few own writes (sessions
        // reconnecting, expiring) stay below the newest token
        long newest = grantTimes(other, 20);
        renewUntilAnswered(held);

        ensemble.killAll();
        ensemble.restore(backup, false);
        ensemble.restartAll();

        assertThatThrownBy(() -> grant(longLived, "r", Duration.ofSeconds(10)))
                .as("no token at or below 0x%s", Long.toHexString(newest)).hasStackTraceContaining("went back");
        // a process started after the restore cannot tell: the same epoch, a lower counter
        long repeated = grant(provider(), "r", Duration.ofSeconds(10)).token().value();
        assertThat(repeated >>> 32).as("the epoch came back with the data").isEqualTo(newest >>> 32);
        assertThat(repeated).as("a token handed out before is handed out again").isLessThanOrEqualTo(newest);
    }

    @Test
    void restoredUnderANewerEpochTheEnsembleHandsOutLargerTokensAndNobodyRefuses() {
        ZooKeeperLockProvider longLived = provider();
        ZooKeeperLockProvider other = provider();
        Lease held = grant(longLived, "held", Duration.ofSeconds(60));
        Path backup = backUpAndRestart();
        long newest = grantTimes(other, 5);
        renewUntilAnswered(held);

        ensemble.killAll();
        ensemble.restore(backup, true);
        ensemble.restartAll();

        long afterRestore = grant(longLived, "r", Duration.ofSeconds(10)).token().value();
        assertThat(afterRestore >>> 32).as("a new epoch above every earlier one").isGreaterThan(newest >>> 32);
        assertThat(afterRestore).as("older data, yet a larger token").isGreaterThan(newest);
        assertThat(grant(provider(), "r2", Duration.ofSeconds(10)).token().value()).isGreaterThan(newest);
    }

    /** Kills the ensemble, backs up every member and restarts it (the next leader takes a new epoch). */
    private Path backUpAndRestart() {
        ensemble.killAll();
        Path backup = ensemble.backUp();
        ensemble.restartAll();
        return backup;
    }

    private static long grantTimes(ZooKeeperLockProvider provider, int times) {
        long newest = 0;
        for (int i = 0; i < times; i++) {
            try (Lease lease = grant(provider, "r", Duration.ofSeconds(10))) {
                newest = lease.token().value();
            }
        }
        return newest;
    }

    /** Renews {@code held}, retried while its client reconnects after the restart. */
    private static void renewUntilAnswered(Lease held) {
        await().atMost(Duration.ofSeconds(60)).ignoreExceptionsMatching(e -> e instanceof LockUnavailableException)
                .untilAsserted(() -> held.renew(Duration.ofSeconds(60)));
    }

    private ZooKeeperLockProvider provider() {
        ZooKeeperLockProvider provider = ZooKeeperLockProvider.builder(ensemble.connectString())
                // the longest session the test ensemble allows (20 ticks): a lease held across a
                // restart stays valid while the ensemble is down and elects (the lease validity rule)
                .sessionTimeout(Duration.ofSeconds(20)).connectTimeout(Duration.ofSeconds(2)).build();
        providers.add(provider);
        return provider;
    }

    /**
     * One grant, retried while the ensemble elects and the client reconnects (failures other than
     * "went back" are ignored meanwhile). A lease counts only once the leader confirmed the
     * session again after the restart: until then its validity is capped by the session's last
     * confirmation from before (the lease validity rule), so a grant made right after the
     * reconnect may be valid for a moment only; such a lease is released and the grant tried again.
     */
    private static Lease grant(ZooKeeperLockProvider provider, String resource, Duration ttl) {
        return await().atMost(Duration.ofSeconds(60)).ignoreExceptionsMatching(e -> e instanceof LockUnavailableException
                        && !String.valueOf(e.getMessage()).contains("went back"))
                .until(() -> confirmedGrant(provider, resource, ttl), Optional::isPresent)
                .orElseThrow();
    }

    /** A lease with at least 4 s of its session's bound ahead of it, or none (an earlier one released). */
    private static Optional<Lease> confirmedGrant(ZooKeeperLockProvider provider, String resource, Duration ttl) {
        Optional<Lease> lease = provider.tryAcquire(resource, LeaseOptions.ofTtl(ttl));
        if (lease.isPresent() && lease.get().remaining().compareTo(Duration.ofSeconds(4)) < 0) {
            try {
                lease.get().close();
            } catch (LeaseLostException e) {
                // its session's bound from before the restart ran out: grant again
            }
            return Optional.empty();
        }
        return lease;
    }
}
