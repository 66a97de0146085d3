package dev.fencing.cli.readme;

import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import io.grpc.netty.GrpcSslContexts;
import io.lettuce.core.SslOptions;
import io.netty.handler.ssl.SslContext;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.net.ssl.SSLException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/** The Java snippets of docs/security.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class SecuritySnippets {

    private SecuritySnippets() {}

    static RedisLockProvider redisOverTls() {
        SslOptions tls = SslOptions.builder()
                .trustManager(new File("/etc/fencing/redis-ca.pem"))          // the authority that signed Redis's certificate
                .keyManager(new File("/etc/fencing/client.pem"), new File("/etc/fencing/client-key.pem"), null)
                .build();
        RedisLockProvider locks = RedisLockProvider.builder("rediss://fencing-locks:" + System.getenv("REDIS_LOCK_PASSWORD")
                + "@redis.internal:6380").sslOptions(tls).build();
        return locks;
    }

    static EtcdLockProvider etcdOverTls() throws SSLException {
        SslContext tls = GrpcSslContexts.forClient()
                .trustManager(new File("/etc/fencing/etcd-ca.pem"))           // the authority that signed etcd's certificate
                .keyManager(new File("/etc/fencing/client.pem"), new File("/etc/fencing/client-key.pem"))
                .build();
        EtcdLockProvider locks = EtcdLockProvider.builder("https://etcd-1:2379", "https://etcd-2:2379", "https://etcd-3:2379")
                .sslContext(tls).credentials("fencing-locks", System.getenv("ETCD_LOCK_PASSWORD")).build();
        return locks;
    }

    static ZooKeeperLockProvider zooKeeperOverTls() {
        ZKClientConfig tls = new ZKClientConfig();
        tls.setProperty("zookeeper.client.secure", "true");
        tls.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
        tls.setProperty("zookeeper.ssl.trustStore.location", "/etc/fencing/zookeeper-truststore.p12");
        tls.setProperty("zookeeper.ssl.trustStore.password", System.getenv("ZK_TRUSTSTORE_PASSWORD"));
        tls.setProperty("zookeeper.ssl.keyStore.location", "/etc/fencing/client.p12");
        tls.setProperty("zookeeper.ssl.keyStore.password", System.getenv("ZK_KEYSTORE_PASSWORD"));
        ACL onlyTheLockAccount = new ACL(ZooDefs.Perms.ALL, new Id("digest", System.getenv("ZK_LOCK_DIGEST"))); // fencing-locks:DIGEST
        ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder("zk1:2281,zk2:2281,zk3:2281")
                .zkClientConfig(tls)
                .authorization("digest", ("fencing-locks:" + System.getenv("ZK_LOCK_PASSWORD")).getBytes(StandardCharsets.UTF_8))
                .acl(List.of(onlyTheLockAccount))
                .build();
        return locks;
    }
}
