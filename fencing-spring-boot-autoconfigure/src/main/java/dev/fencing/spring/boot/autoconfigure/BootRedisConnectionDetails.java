package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.spring.boot.autoconfigure.RedisConnectionSettings.HostPort;
import dev.fencing.spring.boot.autoconfigure.RedisConnectionSettings.Topology;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * Reads, in Boot's order (Sentinel, Cluster, master/replica, standalone), the application's {@link DataRedisConnectionDetails} bean (Boot's spring-boot-data-redis:
 * from {@code spring.data.redis.*}, Docker Compose or Testcontainers). Loaded only when that
 * module is on the class path.
 */
final class BootRedisConnectionDetails {

    static final String CLASS_NAME = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";
    private static final String SOURCE = "the application's DataRedisConnectionDetails bean (spring.data.redis.*)";

    private BootRedisConnectionDetails() {}

    /** The settings of the application's unique Redis connection details bean, if it has one. */
    static Optional<RedisConnectionSettings> find(BeanFactory beanFactory) {
        return Optional.ofNullable(beanFactory.getBeanProvider(DataRedisConnectionDetails.class).getIfUnique())
                .map(BootRedisConnectionDetails::read);
    }

    /**
     * The settings of {@code details}.
     *
     * @throws IllegalStateException for a static master/replica setup, which the lock provider does not support
     */
    static RedisConnectionSettings read(DataRedisConnectionDetails details) {
        if (details.getSentinel() != null) {
            DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
            return new RedisConnectionSettings(Topology.SENTINEL, nodes(sentinel.getNodes()), sentinel.getDatabase(),
                    details.getUsername(), details.getPassword(), sentinel.getMaster(), sentinel.getUsername(),
                    sentinel.getPassword(), details.getSslBundle(), SOURCE);
        }
        if (details.getCluster() != null) {
            return new RedisConnectionSettings(Topology.CLUSTER, nodes(details.getCluster().getNodes()), 0,
                    details.getUsername(), details.getPassword(), null, null, null, details.getSslBundle(), SOURCE);
        }
        if (details.getMasterReplica() != null) {
            throw new IllegalStateException("fencing.lock.type=redis cannot use the application's static master/replica"
                    + " Redis (spring.data.redis.masterreplica.*): locks must be taken on the master; set"
                    + " fencing.lock.redis.uri to the master's redis:// URI");
        }
        DataRedisConnectionDetails.Standalone standalone = java.util.Objects.requireNonNull(details.getStandalone(),
                "Boot describes a Redis that is not Sentinel, Cluster or master/replica as standalone");
        return new RedisConnectionSettings(Topology.STANDALONE,
                List.of(new HostPort(standalone.getHost(), standalone.getPort())), standalone.getDatabase(),
                details.getUsername(), details.getPassword(), null, null, null, details.getSslBundle(), SOURCE);
    }

    private static List<HostPort> nodes(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes.stream().map(node -> new HostPort(node.host(), node.port())).toList();
    }
}
