package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code fencing.lock.type=zookeeper}: a {@link ZooKeeperLockProvider} on {@code fencing.lock.zookeeper.connect-string}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(ZooKeeperLockProvider.class)
@ConditionalOnLockType(LockType.ZOOKEEPER)
class ZooKeeperLockConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    ZooKeeperLockProvider fencingLockProvider(FencingProperties properties, ObjectProvider<FencingListener> listeners) {
        FencingProperties.ZooKeeper zookeeper = properties.getLock().getZookeeper();
        String connectString = PropertyChecks.require("fencing.lock.zookeeper.connect-string",
                zookeeper.getConnectString(), "zookeeper", "host:port,host:port");
        ZooKeeperLockProvider.Builder builder = ZooKeeperLockProvider.builder(connectString);
        PropertyChecks.apply("fencing.lock.zookeeper.key-prefix", zookeeper.getKeyPrefix(), builder::keyPrefix);
        PropertyChecks.apply("fencing.lock.zookeeper.session-timeout", zookeeper.getSessionTimeout(),
                builder::sessionTimeout);
        PropertyChecks.apply("fencing.lock.zookeeper.connect-timeout", zookeeper.getConnectTimeout(),
                builder::connectTimeout);
        Duration serverTickTime = zookeeper.getServerTickTime();
        if (serverTickTime != null) {
            PropertyChecks.apply("fencing.lock.zookeeper.server-tick-time", serverTickTime, builder::serverTickTime);
        }
        if (!zookeeper.getClientConfig().isEmpty()) {
            ZKClientConfig clientConfig = new ZKClientConfig();
            zookeeper.getClientConfig().forEach(clientConfig::setProperty);
            builder.zkClientConfig(clientConfig);
        }
        String username = zookeeper.getUsername();
        if (username != null && !username.isBlank()) {
            String password = zookeeper.getPassword();
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException("fencing.lock.zookeeper.password must be set with"
                        + " fencing.lock.zookeeper.username");
            }
            String digest = username + ":" + password;
            builder.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
            try {
                builder.acl(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest",
                        DigestAuthenticationProvider.generateDigest(digest)))));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JVM has no SHA-1 for ZooKeeper's digest", e);
            }
        }
        try {
            return builder.listener(Listeners.of(listeners)).build();
        } catch (LockUnavailableException e) {
            throw new FencingStartupException("fencing.lock.type=zookeeper: " + e.getMessage(), "Start ZooKeeper, or"
                    + " fix fencing.lock.zookeeper.connect-string (and its digest credentials if it refused this"
                    + " client).", e);
        }
    }
}
