package dev.fencing.etcd;

import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * One etcd per test JVM as docs/security.md sets it up: an {@code https://} client URL that
 * requires a client certificate of the test authority, and RBAC enabled with the lock account of
 * the guide — a role with {@code readwrite} on the range of the key prefix {@code fencing/} and
 * nothing else. A second account, {@code other-locks}, has the same on {@code other/} only: the
 * tests use it as another tenant of the same cluster.
 */
final class SecuredEtcd {

    static final String ROOT_USER = "root";
    static final String LOCK_USER = "fencing-locks";
    static final String OTHER_USER = "other-locks";
    /** Passwords the secret scans look for: they must never appear in a log, message or toString. */
    static final String ROOT_PASSWORD = "root-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
    static final String LOCK_PASSWORD = "lock-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
    static final String OTHER_PASSWORD = "other-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));

    private static TestCertificates certificates;
    private static EtcdTestServer server;

    private SecuredEtcd() {}

    /** Every secret the secured tests use: the accounts' passwords and the key stores' passphrase. */
    static java.util.List<String> secrets() {
        return java.util.List.of(ROOT_PASSWORD, LOCK_PASSWORD, OTHER_PASSWORD, new String(certificates().password()));
    }

    static synchronized TestCertificates certificates() {
        if (certificates == null) {
            certificates = TestCertificates.create();
        }
        return certificates;
    }

    /** The shared server, started and secured on first use. */
    static synchronized EtcdTestServer server() {
        if (server == null) {
            server = EtcdTestServer.launchTls(certificates());
            secure(server);
        }
        return server;
    }

    /** The roles and users of docs/security.md, then {@code auth enable}. */
    private static void secure(EtcdTestServer etcd) {
        try (Client admin = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new))
                .sslContext(sslContext()).build()) {
            Auth auth = admin.getAuthClient();
            auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
            auth.userAdd(bytes(ROOT_USER), bytes(ROOT_PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes(ROOT_USER), bytes("root")).get(10, TimeUnit.SECONDS);
            account(auth, LOCK_USER, LOCK_PASSWORD, "fencing/");
            account(auth, OTHER_USER, OTHER_PASSWORD, "other/");
            auth.authEnable().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot set up etcd's RBAC on " + etcd, e);
        }
    }

    /** A user whose role of the same name has readwrite on {@code prefix}'s range and nothing else. */
    private static void account(Auth auth, String user, String password, String prefix) throws Exception {
        auth.roleAdd(bytes(user)).get(10, TimeUnit.SECONDS);
        auth.roleGrantPermission(bytes(user), bytes(prefix), bytes(prefixEnd(prefix)), Permission.Type.READWRITE)
                .get(10, TimeUnit.SECONDS);
        auth.userAdd(bytes(user), bytes(password)).get(10, TimeUnit.SECONDS);
        auth.userGrantRole(bytes(user), bytes(user)).get(10, TimeUnit.SECONDS);
    }

    /** What {@code etcdctl --prefix} makes the range's end: the prefix with its last byte plus one. */
    static String prefixEnd(String prefix) {
        char last = prefix.charAt(prefix.length() - 1);
        return prefix.substring(0, prefix.length() - 1) + (char) (last + 1);
    }

    /** Trust in the test authority, with its client certificate. */
    static SslContext sslContext() {
        return sslContext(certificates());
    }

    /** Trust in {@code authority}'s CA, with the shared authority's client certificate. */
    static SslContext sslContext(TestCertificates authority) {
        TestCertificates own = certificates();
        try {
            return GrpcSslContexts.forClient().trustManager(authority.caCertificate().toFile())
                    .keyManager(own.clientCertificate().toFile(), own.clientKey().toFile()).build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot load the test certificates", e);
        }
    }

    /** A jetcd client of {@code user} over TLS with the client certificate. */
    static Client client(String user, String password) {
        return Client.builder().endpoints(server().endpoints().toArray(String[]::new)).sslContext(sslContext())
                .user(bytes(user)).password(bytes(password)).build();
    }

    /** A provider builder of the lock account over TLS with the client certificate. */
    static EtcdLockProvider.Builder lockProvider() {
        return EtcdLockProvider.builder(server().endpoints().toArray(String[]::new)).sslContext(sslContext())
                .credentials(LOCK_USER, LOCK_PASSWORD);
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
