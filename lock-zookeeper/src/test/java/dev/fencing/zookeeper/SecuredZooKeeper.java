package dev.fencing.zookeeper;

import dev.fencing.testkit.servers.TestCertificates;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * One ZooKeeper per test JVM as docs/security.md sets it up: a secure client port (Netty, client
 * certificates of the test authority required), digest accounts, and the lock's root
 * {@code /fencing/locks} created ahead as persistent znodes whose ACL lets only the lock account
 * in. The provider gives every znode it creates the same ACL ({@link #LOCK_ACL}). A second
 * account, {@code other-locks}, is another tenant of the same server.
 */
final class SecuredZooKeeper {

    static final String LOCK_USER = "fencing-locks";
    static final String OTHER_USER = "other-locks";
    /** Passwords the secret scans look for: they must never appear in a log, message or toString. */
    static final String LOCK_PASSWORD = "lock-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
    static final String OTHER_PASSWORD = "other-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
    static final String ROOT = "/fencing/locks";

    /**
     * Every permission for the lock account's digest identity, and nothing for anyone else. Not a
     * {@code List.of}: Curator asks the list whether it contains null, which {@code List.of} refuses.
     */
    static final List<ACL> LOCK_ACL = Collections.singletonList(new ACL(ZooDefs.Perms.ALL, new Id("digest",
            digest(LOCK_USER, LOCK_PASSWORD))));

    private static TestCertificates certificates;
    private static ZooKeeperTestServer server;

    private SecuredZooKeeper() {}

    /** Every secret the secured tests use: the accounts' passwords and the key stores' passphrase. */
    static java.util.List<String> secrets() {
        return java.util.List.of(LOCK_PASSWORD, OTHER_PASSWORD, new String(certificates().password()));
    }

    static synchronized TestCertificates certificates() {
        if (certificates == null) {
            certificates = TestCertificates.create();
        }
        return certificates;
    }

    /** The shared server, started on first use, with the lock's root created ahead. */
    static synchronized ZooKeeperTestServer server() {
        if (server == null) {
            server = ZooKeeperTestServer.launchTls(certificates());
            try (CuratorFramework locks = client(LOCK_USER, LOCK_PASSWORD)) {
                locks.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).withACL(LOCK_ACL)
                        .forPath(ROOT);
            } catch (Exception e) {
                throw new IllegalStateException("cannot create " + ROOT + " on " + server, e);
            }
        }
        return server;
    }

    /** {@code user:base64(sha1(user:password))}, ZooKeeper's digest identity. */
    static String digest(String user, String password) {
        try {
            return DigestAuthenticationProvider.generateDigest(user + ":" + password);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** TLS with the test authority's trust and client certificate, for this client only. */
    static ZKClientConfig tls() {
        return tls(certificates(), certificates());
    }

    /** TLS trusting {@code trusted}'s authority, presenting {@code client}'s client certificate. */
    static ZKClientConfig tls(TestCertificates trusted, TestCertificates client) {
        String password = new String(certificates().password());
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty("zookeeper.client.secure", "true");
        config.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
        config.setProperty("zookeeper.ssl.trustStore.location", trusted.trustStore().toString());
        config.setProperty("zookeeper.ssl.trustStore.password", password);
        config.setProperty("zookeeper.ssl.trustStore.type", "PKCS12");
        config.setProperty("zookeeper.ssl.keyStore.location", client.clientKeyStore().toString());
        config.setProperty("zookeeper.ssl.keyStore.password", password);
        config.setProperty("zookeeper.ssl.keyStore.type", "PKCS12");
        return config;
    }

    /**
     * A provider builder of the lock account over TLS, giving its znodes {@link #LOCK_ACL}. Its build
     * waits up to 30 s for the session: a TLS session with the server's child JVM took longer than the
     * default 5 s on a machine busy with other builds, and the build returns as soon as it connects.
     */
    static ZooKeeperLockProvider.Builder lockProvider() {
        return ZooKeeperLockProvider.builder(server().secureConnectString()).connectTimeout(Duration.ofSeconds(30))
                .zkClientConfig(tls())
                .authorization("digest", (LOCK_USER + ":" + LOCK_PASSWORD).getBytes(StandardCharsets.UTF_8))
                .acl(List.of(LOCK_ACL.get(0)));
    }

    /** A started Curator client of {@code user} over TLS (a null user: no digest authentication), connected. */
    static CuratorFramework client(String user, String password) {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(server.secureConnectString()).zkClientConfig(tls()).retryPolicy(new RetryOneTime(100))
                .connectionTimeoutMs(10_000);
        if (user != null) {
            builder.authorization("digest", (user + ":" + password).getBytes(StandardCharsets.UTF_8));
        }
        return started(builder.build());
    }

    /** A started client on the plaintext port, without any authentication. */
    static CuratorFramework anonymousPlaintextClient() {
        return started(CuratorFrameworkFactory.builder().connectString(server().connectString())
                .retryPolicy(new RetryOneTime(100)).connectionTimeoutMs(10_000).build());
    }

    private static CuratorFramework started(CuratorFramework client) {
        client.start();
        try {
            if (!client.blockUntilConnected(20, java.util.concurrent.TimeUnit.SECONDS)) {
                client.close();
                throw new IllegalStateException("a test client did not connect to " + server);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return client;
    }
}
