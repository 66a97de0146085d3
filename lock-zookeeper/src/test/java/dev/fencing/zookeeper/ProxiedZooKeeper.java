package dev.fencing.zookeeper;

import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.LaggingProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@link UnclearReplies} for ZooKeeper: a provider whose connection to the same ZooKeeper passes
 * through one {@link LaggingProxy} per server of the connect string. Holding replies lets every
 * request reach ZooKeeper (which executes it) while no byte comes back; the client notices only
 * through its read timeout (two thirds of the session timeout), drops the connection — and the
 * replies held on it with it — and cannot reconnect until replies pass again.
 */
final class ProxiedZooKeeper implements UnclearReplies {

    private final List<LaggingProxy> proxies = new ArrayList<>();
    private final ZooKeeperLockProvider provider;

    /**
     * @param connectString the servers, {@code host:port,host:port}
     * @param sessionTimeout the provider's session timeout
     * @param connectionTimeout the provider's connection timeout
     */
    ProxiedZooKeeper(String connectString, Duration sessionTimeout, Duration connectionTimeout) {
        for (String server : connectString.split(",")) {
            int colon = server.lastIndexOf(':');
            proxies.add(LaggingProxy.start(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1))));
        }
        String proxied = proxies.stream().map(proxy -> "127.0.0.1:" + proxy.port()).collect(Collectors.joining(","));
        this.provider = ZooKeeperLockProvider.builder(proxied).sessionTimeout(sessionTimeout)
                .connectTimeout(connectionTimeout).build();
    }

    @Override
    public ZooKeeperLockProvider provider() {
        return provider;
    }

    @Override
    public void holdReplies() {
        proxies.forEach(LaggingProxy::holdReplies);
    }

    @Override
    public void passReplies() {
        proxies.forEach(LaggingProxy::passReplies);
    }

    /** Closes every connection through the proxies, dropping the replies they hold; new connections work. */
    void dropConnections() {
        proxies.forEach(LaggingProxy::dropConnections);
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
