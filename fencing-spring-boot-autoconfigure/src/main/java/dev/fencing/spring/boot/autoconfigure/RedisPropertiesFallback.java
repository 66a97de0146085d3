package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.spring.boot.autoconfigure.RedisConnectionSettings.HostPort;
import dev.fencing.spring.boot.autoconfigure.RedisConnectionSettings.Topology;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * Reads {@code spring.data.redis.*} directly, for an application without Boot's
 * spring-boot-data-redis module (and so without its connection details bean): url, host, port,
 * database, username, password, ssl.enabled, ssl.bundle, sentinel.* and cluster.nodes, with
 * Boot's defaults (localhost:6379) and Boot's order (Sentinel, then Cluster, then url, then host).
 */
final class RedisPropertiesFallback {

    private static final String PREFIX = "spring.data.redis.";
    private static final String SOURCE = "spring.data.redis.*";

    private RedisPropertiesFallback() {}

    /**
     * The settings {@code spring.data.redis.*} give.
     *
     * @throws IllegalArgumentException naming the property whose value cannot be used
     */
    static RedisConnectionSettings read(Binder binder, BeanFactory beanFactory) {
        String username = string(binder, "username");
        String password = string(binder, "password");
        SslBundle ssl = ssl(binder, beanFactory);
        int database = binder.bind(PREFIX + "database", Integer.class).orElse(0);
        List<String> sentinels = list(binder, "sentinel.nodes");
        if (!sentinels.isEmpty()) {
            String master = string(binder, "sentinel.master");
            if (master == null) {
                throw new IllegalArgumentException(PREFIX + "sentinel.master must name the master when "
                        + PREFIX + "sentinel.nodes is set");
            }
            return new RedisConnectionSettings(Topology.SENTINEL, nodes("sentinel.nodes", sentinels), database,
                    username, password, master, string(binder, "sentinel.username"),
                    string(binder, "sentinel.password"), ssl, SOURCE);
        }
        List<String> cluster = list(binder, "cluster.nodes");
        if (!cluster.isEmpty()) {
            return new RedisConnectionSettings(Topology.CLUSTER, nodes("cluster.nodes", cluster), 0, username,
                    password, null, null, null, ssl, SOURCE);
        }
        String url = string(binder, "url");
        if (url != null) {
            return fromUrl(url, username, password, ssl);
        }
        HostPort server = new HostPort(binder.bind(PREFIX + "host", String.class).orElse("localhost"),
                binder.bind(PREFIX + "port", Integer.class).orElse(6379));
        return new RedisConnectionSettings(Topology.STANDALONE, List.of(server), database, username, password, null,
                null, null, ssl, SOURCE);
    }

    /** Boot's reading of {@code spring.data.redis.url}: {@code redis[s]://[[user]:password@]host[:port][/database]}. */
    private static RedisConnectionSettings fromUrl(String url, @Nullable String username, @Nullable String password,
            @Nullable SslBundle ssl) {
        URI parsed;
        try {
            parsed = new URI(url);
        } catch (URISyntaxException e) {
            // URISyntaxException's message (and so the cause) repeats the URL, password and all
            throw badUrl(url, e.getReason() + " at index " + e.getIndex()
                    + " (percent-encode such characters in a password)", null);
        }
        if (!"redis".equals(parsed.getScheme()) && !"rediss".equals(parsed.getScheme())) {
            throw badUrl(url, "the scheme must be redis or rediss", null);
        }
        if (parsed.getHost() == null) {
            throw badUrl(url, "it names no host (percent-encode '@' and '/' in a password: %40, %2F)", null);
        }
        String user = username;
        String secret = password;
        if (parsed.getUserInfo() != null) {
            int colon = parsed.getUserInfo().indexOf(':');
            user = colon > 0 ? parsed.getUserInfo().substring(0, colon) : null;
            secret = parsed.getUserInfo().substring(colon + 1);
        }
        int database = 0;
        String path = parsed.getPath() == null ? "" : parsed.getPath().replace("/", "");
        if (!path.isEmpty()) {
            try {
                database = Integer.parseInt(path);
            } catch (NumberFormatException e) {
                throw badUrl(url, "the path must be a database number", e);
            }
        }
        SslBundle tls = "rediss".equals(parsed.getScheme()) && ssl == null ? SslBundle.systemDefault() : ssl;
        HostPort server = new HostPort(parsed.getHost(), parsed.getPort() > 0 ? parsed.getPort() : 6379);
        return new RedisConnectionSettings(Topology.STANDALONE, List.of(server), database, user, secret, null, null,
                null, tls, SOURCE);
    }

    private static IllegalArgumentException badUrl(String url, String why, @Nullable Exception cause) {
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        // the user info runs to the last '@': a password may hold '@' or '/' unencoded
        String masked = scheme >= 0 && at > scheme ? url.substring(0, scheme + 3) + "***" + url.substring(at) : url;
        return new IllegalArgumentException(PREFIX + "url = '" + masked + "' is not a redis:// or rediss:// URL: "
                + why, cause);
    }

    private static @Nullable SslBundle ssl(Binder binder, BeanFactory beanFactory) {
        if (!binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false)) {
            return null;
        }
        String bundle = string(binder, "ssl.bundle");
        if (bundle == null) {
            return SslBundle.systemDefault();
        }
        SslBundles bundles = beanFactory.getBeanProvider(SslBundles.class).getIfAvailable();
        if (bundles == null) {
            throw new IllegalArgumentException(PREFIX + "ssl.bundle = '" + bundle + "' but the application has no"
                    + " SslBundles bean (spring.ssl.bundle.*)");
        }
        return bundles.getBundle(bundle);
    }

    private static @Nullable String string(Binder binder, String name) {
        String value = binder.bind(PREFIX + name, String.class).map(String::strip).orElse("");
        return value.isEmpty() ? null : value;
    }

    private static List<String> list(Binder binder, String name) {
        return binder.bind(PREFIX + name, Bindable.listOf(String.class)).orElse(List.of());
    }

    private static List<HostPort> nodes(String name, List<String> values) {
        return values.stream().map(value -> HostPort.parse(PREFIX + name, value)).toList();
    }
}
