package dev.fencing.redis;

import dev.fencing.testkit.servers.RedisClusterTestServer;
import dev.fencing.testkit.servers.RedisSentinelTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import java.util.ArrayList;
import java.util.List;

/**
 * One TLS Redis per test JVM with the least-privileged accounts of docs/security.md: the lock
 * user may run the providers' scripts on {@code fencing:{*} keys and channels only, the store
 * user the store's on {@code fencing:store:*} only. The ACL rules here are the ones the guide
 * lists; a test that needs one more command fails until the guide says so too.
 */
final class SecuredRedis {

    static final String LOCK_USER = "fencing-locks";
    static final String STORE_USER = "fencing-store";
    /** Passwords the secret scans look for: they must never appear in a log, message or toString. */
    static final String LOCK_PASSWORD = "lock-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
    static final String STORE_PASSWORD = "store-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));

    /** The lock providers' account: their scripts, release notices and start-up checks, on their keys. */
    static final List<String> LOCK_RULES = List.of("resetkeys", "~fencing:{*", "resetchannels", "&fencing:{*",
            "-@all", "+hello", "+auth", "+ping", "+info", "+client|setname", "+client|setinfo", "+evalsha", "+eval",
            "+script|load", "+subscribe", "+unsubscribe", "+wait",
            // a cluster client reads the topology
            "+cluster|slots", "+cluster|nodes", "+cluster|myid",
            // what the scripts call
            "+get", "+set", "+del", "+exists", "+pexpire", "+time", "+publish",
            // inspect reads the lock key's remaining time
            "+pttl");

    /** The store's account: its script and reads, on its keys. */
    static final List<String> STORE_RULES = List.of("resetkeys", "~fencing:store:*", "resetchannels",
            "-@all", "+hello", "+auth", "+ping", "+client|setname", "+client|setinfo", "+evalsha", "+eval",
            "+script|load", "+hmget",
            // what the script calls
            "+hget", "+hset", "+hdel", "+hincrby", "+exists", "+set");

    private static TestCertificates certificates;
    private static RedisTestServer server;
    private static RedisClusterTestServer cluster;
    private static List<RedisTestServer> redlockNodes;
    private static RedisSentinelTestServer sentinel;

    private SecuredRedis() {}

    /** Every secret the secured tests use: the accounts' passwords and the key stores' passphrase. */
    static List<String> secrets() {
        return List.of(LOCK_PASSWORD, STORE_PASSWORD, new String(certificates().password()));
    }

    static synchronized TestCertificates certificates() {
        if (certificates == null) {
            certificates = TestCertificates.create();
        }
        return certificates;
    }

    /** The shared server, started on first use. */
    static synchronized RedisTestServer server() {
        if (server == null) {
            server = launch();
        }
        return server;
    }

    /** The shared 3-master cluster over TLS with the same accounts, started on first use. */
    static synchronized RedisClusterTestServer cluster() {
        if (cluster == null) {
            cluster = RedisClusterTestServer.launchTls(3, certificates(), accounts());
        }
        return cluster;
    }

    /** A Sentinel over TLS monitoring the shared server as {@code fencing-master}, started on first use. */
    static synchronized RedisSentinelTestServer sentinel() {
        if (sentinel == null) {
            sentinel = RedisSentinelTestServer.launchTls(certificates(), server(), "fencing-master");
        }
        return sentinel;
    }

    /** Three independent secured masters for Redlock: the shared server and two more, started on first use. */
    static synchronized List<RedisTestServer> redlockNodes() {
        if (redlockNodes == null) {
            redlockNodes = List.of(server(), launch(), launch());
        }
        return redlockNodes;
    }

    /** The lock account's {@code rediss://} URIs of {@code nodes}. */
    static List<String> lockUris(List<RedisTestServer> nodes) {
        return nodes.stream().map(node -> uri(node, LOCK_USER, LOCK_PASSWORD)).toList();
    }

    /** A new server of its own with the same accounts. */
    static RedisTestServer launch() {
        return RedisTestServer.launchTls(certificates(), accounts());
    }

    private static String[] accounts() {
        List<String> arguments = new ArrayList<>();
        arguments.addAll(user(LOCK_USER, LOCK_PASSWORD, LOCK_RULES));
        arguments.addAll(user(STORE_USER, STORE_PASSWORD, STORE_RULES));
        return arguments.toArray(String[]::new);
    }

    /** The {@code rediss://user:password@…} seed URIs of the shared cluster for the lock account. */
    static String[] lockClusterUris(RedisClusterTestServer cluster) {
        return cluster.nodes().stream().map(node -> uri(node, LOCK_USER, LOCK_PASSWORD)).toArray(String[]::new);
    }

    private static List<String> user(String name, String password, List<String> rules) {
        List<String> arguments = new ArrayList<>(List.of("--user", name, "on", ">" + password));
        arguments.addAll(rules);
        return arguments;
    }

    /** {@code rediss://user:password@127.0.0.1:tlsPort} of {@code server}. */
    static String uri(RedisTestServer server, String user, String password) {
        return "rediss://" + user + ":" + password + "@" + server.host() + ":" + server.tlsPort();
    }

    /** Trust in the test authority, with its client certificate. */
    static SslOptions sslOptions() {
        TestCertificates certs = certificates();
        return SslOptions.builder().jdkSslProvider().trustManager(certs.caCertificate().toFile())
                .keyManager(certs.clientCertificate().toFile(), certs.clientKey().toFile(), null).build();
    }

    /** A client of the store's account over TLS, verifying the server's certificate and name. */
    static RedisClient storeClient(RedisTestServer server) {
        RedisURI uri = RedisURI.create(uri(server, STORE_USER, STORE_PASSWORD));
        uri.setVerifyPeer(SslVerifyMode.FULL);
        RedisClient client = RedisClient.create(uri);
        client.setOptions(io.lettuce.core.ClientOptions.builder().sslOptions(sslOptions()).build());
        return client;
    }
}
