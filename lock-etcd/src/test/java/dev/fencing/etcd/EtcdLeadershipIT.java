package dev.fencing.etcd;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;

/**
 * Leader election on etcd, each candidate with a client of its own. The request timeout is long
 * enough for a client's first request on a loaded machine: 3 s once failed a start beside other
 * modules' builds (load average 11 on 2 cores), while renewals are bounded by the TTL anyway.
 */
class EtcdLeadershipIT extends LeadershipContract {

    private static final EtcdTestServer etcd = TestServers.etcd();

    @Override
    protected LockProvider createProvider() {
        return EtcdLockProvider.builder(etcd.endpoints().toArray(String[]::new))
                .requestTimeout(Duration.ofSeconds(10)).build();
    }
}
