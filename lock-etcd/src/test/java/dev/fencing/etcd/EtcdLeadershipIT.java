package dev.fencing.etcd;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.Optional;

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

    /**
     * A client behind a proxy that holds every reply, keep-alives included ({@link EtcdLockProviderIT}'s
     * unclear-replies client holds only transactions, so its renewals would go on).
     */
    @Override
    protected Optional<UnclearReplies> silencedClient() {
        LaggingProxy proxy = LaggingProxy.start("127.0.0.1", etcd.port());
        EtcdLockProvider client = EtcdLockProvider.builder("http://127.0.0.1:" + proxy.port())
                .requestTimeout(Duration.ofSeconds(1)).build();
        return Optional.of(UnclearReplies.of(client, proxy::holdReplies, proxy::passReplies, () -> {
            client.close();
            proxy.close();
        }));
    }
}
