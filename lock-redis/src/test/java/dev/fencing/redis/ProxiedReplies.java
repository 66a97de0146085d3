package dev.fencing.redis;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** {@link UnclearReplies} over one {@link LaggingProxy} per server; holding replies delays them by {@code lag}. */
final class ProxiedReplies implements UnclearReplies {

    private final List<LaggingProxy> proxies = new ArrayList<>();
    private final List<LaggingProxy> held;
    private final LockProvider provider;
    private final Duration lag;

    /**
     * @param servers the servers, each put behind a proxy
     * @param heldCount how many of them (the first) hold their replies back
     * @param connect builds the provider from the proxies' URIs
     */
    ProxiedReplies(List<RedisTestServer> servers, int heldCount, Duration lag, Function<List<String>, LockProvider> connect) {
        for (RedisTestServer server : servers) {
            proxies.add(LaggingProxy.start(server.host(), server.port()));
        }
        this.held = proxies.subList(0, heldCount);
        this.lag = lag;
        this.provider = connect.apply(proxies.stream().map(LaggingProxy::redisUri).toList());
    }

    @Override
    public LockProvider provider() {
        return provider;
    }

    @Override
    public void holdReplies() {
        held.forEach(proxy -> proxy.lagReplies(lag));
    }

    @Override
    public void passReplies() {
        held.forEach(proxy -> proxy.lagReplies(Duration.ZERO));
    }

    @Override
    public void close() {
        try {
            provider.close();
        } finally {
            proxies.forEach(LaggingProxy::close);
        }
    }
}
