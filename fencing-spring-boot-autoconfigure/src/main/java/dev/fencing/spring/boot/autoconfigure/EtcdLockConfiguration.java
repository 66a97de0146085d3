package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.etcd.EtcdLockProvider;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import java.util.List;
import javax.net.ssl.SSLException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code fencing.lock.type=etcd}: an {@link EtcdLockProvider} on {@code fencing.lock.etcd.endpoints}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(EtcdLockProvider.class)
@ConditionalOnLockType(LockType.ETCD)
class EtcdLockConfiguration {

    /** gRPC's Netty TLS settings from a Boot SSL bundle's trust and key managers. */
    static SslContext grpcSslContext(String name, SslBundle bundle) {
        try {
            return GrpcSslContexts.forClient().trustManager(bundle.getManagers().getTrustManagerFactory())
                    .keyManager(bundle.getManagers().getKeyManagerFactory()).build();
        } catch (SSLException e) {
            throw new IllegalStateException("fencing.lock.etcd.ssl-bundle=" + name + " cannot make gRPC's TLS"
                    + " settings: " + e.getMessage(), e);
        }
    }

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    EtcdLockProvider fencingLockProvider(FencingProperties properties, ObjectProvider<FencingListener> listeners,
            ObjectProvider<SslBundles> sslBundles) {
        FencingProperties.Etcd etcd = properties.getLock().getEtcd();
        List<String> endpoints = etcd.getEndpoints().stream().map(String::strip).filter(e -> !e.isEmpty()).toList();
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("fencing.lock.etcd.endpoints must be set for fencing.lock.type=etcd"
                    + " (http://host:port or https://host:port, one per member)");
        }
        EtcdLockProvider.Builder builder;
        try {
            builder = EtcdLockProvider.builder(endpoints.toArray(String[]::new));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fencing.lock.etcd.endpoints = " + endpoints + " is not allowed: "
                    + e.getMessage(), e);
        }
        PropertyChecks.apply("fencing.lock.etcd.key-prefix", etcd.getKeyPrefix(), builder::keyPrefix);
        PropertyChecks.apply("fencing.lock.etcd.request-timeout", etcd.getRequestTimeout(), builder::requestTimeout);
        String username = etcd.getUsername();
        if (username != null && !username.isBlank()) {
            String password = etcd.getPassword();
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException("fencing.lock.etcd.password must be set with"
                        + " fencing.lock.etcd.username");
            }
            builder.credentials(username, password);
        }
        String bundleName = etcd.getSslBundle();
        if (bundleName != null && !bundleName.isBlank()) {
            SslBundles bundles = sslBundles.getIfAvailable();
            if (bundles == null) {
                throw new IllegalStateException("fencing.lock.etcd.ssl-bundle=" + bundleName + " needs Spring Boot's"
                        + " SslBundles (spring.ssl.bundle.*), which this application has not configured");
            }
            builder.sslContext(grpcSslContext(bundleName, bundles.getBundle(bundleName)));
        }
        try {
            return builder.listener(Listeners.of(listeners)).build();
        } catch (LockUnavailableException e) {
            throw new FencingStartupException("fencing.lock.type=etcd: " + e.getMessage(), "Start etcd, or fix"
                    + " fencing.lock.etcd.endpoints (and fencing.lock.etcd.username, password or ssl-bundle if it"
                    + " refused this client).", e);
        }
    }
}
