package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.spring.boot.autoconfigure.RedisConnectionSettings.HostPort;
import dev.fencing.spring.boot.autoconfigure.RedisConnectionSettings.Topology;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;

/**
 * The Lettuce client of the auto-configured Redis lock provider: the provider's own connection
 * (it never shares Spring Data Redis's), shut down when the context closes, after the provider
 * (which depends on it). Its options are the ones {@code RedisLockProvider} gives a client it
 * creates itself: commands fail fast while disconnected (standalone and Sentinel), the command
 * timeout bounds every call, the connect timeout bounds the connection handshake (a Redis that
 * accepts TCP and never answers fails the start within it), a Cluster refreshes its topology every
 * 30 s; and TLS with the
 * application's SSL bundle.
 */
final class FencingRedisClient implements AutoCloseable {

    private final AbstractRedisClient client;
    private final String target;

    private FencingRedisClient(AbstractRedisClient client, String target) {
        this.client = client;
        this.target = target;
    }

    /** A client for {@code settings}; connects nothing yet. */
    static FencingRedisClient of(RedisConnectionSettings settings, Duration requestTimeout, Duration connectTimeout) {
        SslOptions ssl = settings.ssl() == null ? null : sslOptions(settings.ssl());
        String servers = settings.nodes().stream().map(node -> node.host() + ":" + node.port())
                .reduce((a, b) -> a + "," + b).orElseThrow() + " from " + settings.source();
        if (settings.topology() == Topology.CLUSTER) {
            List<RedisURI> seeds = settings.nodes().stream()
                    .map(node -> dataNode(RedisURI.Builder.redis(node.host(), node.port()), settings, connectTimeout))
                    .toList();
            RedisClusterClient cluster = RedisClusterClient.create(seeds);
            ClusterClientOptions.Builder options = ClusterClientOptions.builder()
                    .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                    .timeoutOptions(TimeoutOptions.enabled(requestTimeout))
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(Duration.ofSeconds(30)).build());
            if (ssl != null) {
                options.sslOptions(ssl);
            }
            cluster.setOptions(options.build());
            return new FencingRedisClient(cluster, "Redis Cluster " + servers);
        }
        if (settings.topology() == Topology.SENTINEL) {
            RedisURI.Builder uri = RedisURI.builder().withSentinelMasterId(settings.sentinelMaster());
            for (HostPort sentinel : settings.nodes()) {
                RedisURI.Builder node = RedisURI.Builder.redis(sentinel.host(), sentinel.port())
                        .withTimeout(connectTimeout);
                credentials(node, settings.sentinelUsername(), settings.sentinelPassword());
                uri.withSentinel(node.withSsl(ssl != null).build());
            }
            return standalone(dataNode(uri.withDatabase(settings.database()), settings, connectTimeout), ssl,
                    requestTimeout, connectTimeout,
                    "Redis Sentinel master '" + settings.sentinelMaster() + "' at " + servers);
        }
        HostPort server = settings.nodes().get(0);
        RedisURI.Builder uri = RedisURI.Builder.redis(server.host(), server.port()).withDatabase(settings.database());
        return standalone(dataNode(uri, settings, connectTimeout), ssl, requestTimeout, connectTimeout,
                "Redis " + servers);
    }

    /** A client for a {@code redis://}, {@code rediss://} or {@code redis-sentinel://} URI. */
    static FencingRedisClient of(String uri, Duration requestTimeout, Duration connectTimeout) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        // the user info runs to the last '@': a password may hold '@' or '/' unencoded
        String masked = scheme >= 0 && at > scheme ? uri.substring(0, scheme + 3) + "***" + uri.substring(at) : uri;
        if (scheme >= 0 && at > scheme && (uri.indexOf('@', scheme) != at || uri.substring(scheme + 3, at).contains("/"))) {
            throw new IllegalArgumentException("fencing.lock.redis.uri = '" + masked + "': its password holds '@' or"
                    + " '/'; percent-encode them (%40, %2F)");
        }
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (IllegalArgumentException e) {
            // java.net.URI's message (and so the cause) repeats the whole URI, password and all: neither is kept
            String why = e.getCause() instanceof java.net.URISyntaxException syntax
                    ? syntax.getReason() + " at index " + syntax.getIndex()
                            + " (percent-encode such characters in a password)"
                    : e.getMessage() != null && !e.getMessage().contains("@") ? e.getMessage() : "malformed";
            throw new IllegalArgumentException("fencing.lock.redis.uri = '" + masked
                    + "' is not a redis://, rediss:// or redis-sentinel:// URI: " + why);
        }
        String target = parsed.getSentinels().isEmpty() ? parsed.getHost() + ":" + parsed.getPort()
                : "sentinel master " + parsed.getSentinelMasterId();
        parsed.setTimeout(connectTimeout);
        parsed.getSentinels().forEach(sentinel -> sentinel.setTimeout(connectTimeout));
        return standalone(parsed, null, requestTimeout, connectTimeout,
                "Redis " + target + " from fencing.lock.redis.uri");
    }

    private static FencingRedisClient standalone(RedisURI uri, @Nullable SslOptions ssl, Duration requestTimeout,
            Duration connectTimeout, String target) {
        RedisClient client = RedisClient.create(uri);
        ClientOptions.Builder options = ClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(requestTimeout));
        if (ssl != null) {
            options.sslOptions(ssl);
        }
        client.setOptions(options.build());
        return new FencingRedisClient(client, target);
    }

    /** A data node's URI; its timeout is the handshake's bound (the command timeout is set per connection). */
    private static RedisURI dataNode(RedisURI.Builder uri, RedisConnectionSettings settings, Duration connectTimeout) {
        credentials(uri, settings.username(), settings.password());
        return uri.withSsl(settings.ssl() != null).withTimeout(connectTimeout).build();
    }

    private static void credentials(RedisURI.Builder uri, @Nullable String username, @Nullable String password) {
        if (password != null && username != null) {
            uri.withAuthentication(username, password);
        } else if (password != null) {
            uri.withPassword(password.toCharArray());
        }
    }

    /** Lettuce's TLS settings from a Boot SSL bundle: its key and trust managers, ciphers and protocols. */
    private static SslOptions sslOptions(SslBundle bundle) {
        SslOptions.Builder options = SslOptions.builder().jdkSslProvider()
                .keyManager(bundle.getManagers().getKeyManagerFactory())
                .trustManager(bundle.getManagers().getTrustManagerFactory());
        if (bundle.getOptions().getCiphers() != null) {
            options.cipherSuites(bundle.getOptions().getCiphers());
        }
        if (bundle.getOptions().getEnabledProtocols() != null) {
            options.protocols(bundle.getOptions().getEnabledProtocols());
        }
        return options.build();
    }

    /** The Lettuce client, standalone ({@link RedisClient}) or cluster ({@link RedisClusterClient}). */
    AbstractRedisClient client() {
        return client;
    }

    /** The servers, without credentials, and where they were configured. */
    String target() {
        return target;
    }

    /** {@link #target()} without its leading "Redis ": how the provider's messages name the server ("Redis at …"). */
    String servers() {
        return target.startsWith("Redis ") ? target.substring("Redis ".length()) : target;
    }

    /** Shuts the client down (after the provider closed its connections). */
    @Override
    public void close() {
        client.shutdown();
    }
}
