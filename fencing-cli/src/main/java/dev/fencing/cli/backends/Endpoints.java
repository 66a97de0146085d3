package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;

import io.lettuce.core.RedisURI;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Checks the form of a server address before anything connects, so a malformed one is bad usage
 * (exit 2, naming where it came from and what is allowed) and never mistaken for a server that
 * cannot be reached. Also hides passwords in addresses that are printed.
 */
final class Endpoints {

    private static final Set<String> REDIS_SCHEMES = Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel",
            "redis-socket");
    private static final String REDIS_FORM = "redis://[:PASSWORD@]HOST[:PORT][/DB] (rediss:// for TLS,"
            + " redis-sentinel://HOST:PORT[,HOST:PORT]#MASTER for Sentinel)";
    private static final String JDBC_FORM = "jdbc:postgresql://HOST[:PORT]/DATABASE?user=U&password=P, or for the jdbc"
            + " store alone jdbc:mariadb://HOST[:PORT]/DATABASE?user=U&password=P";

    private static final String ETCD_FORM = "http://HOST:PORT (https:// for TLS), comma-separated for the members of a"
            + " cluster, e.g. http://127.0.0.1:2379,http://127.0.0.1:22379";
    private static final String ZOOKEEPER_FORM = "HOST:PORT, comma-separated for an ensemble (an optional /CHROOT at"
            + " the end), e.g. 127.0.0.1:2181,127.0.0.1:2182";
    private static final int ZOOKEEPER_DEFAULT_PORT = 2181;

    private Endpoints() {}

    /**
     * A Redis URI as Lettuce takes it, with a host (or Sentinel nodes).
     *
     * @param source the option or variable the value came from, for the message
     */
    static String redisUri(String source, String uri) {
        String scheme = scheme(uri);
        if (!REDIS_SCHEMES.contains(scheme)) {
            throw bad(source, uri, scheme.isEmpty() ? "it has no scheme" : "'" + scheme + ":' is not a Redis scheme",
                    REDIS_FORM);
        }
        if (uri.substring(uri.indexOf("://") + 3).isBlank()) {
            throw bad(source, uri, "it names no host", REDIS_FORM);
        }
        int authorityStart = uri.indexOf("://") + 3;
        int at = userInfoEnd(uri);
        if (at >= 0 && (uri.indexOf('@', authorityStart) != at || uri.substring(authorityStart, at).contains("/"))) {
            throw bad(source, uri, "its password holds '@' or '/': percent-encode them (%40, %2F)",
                    REDIS_FORM);
        }
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (IllegalArgumentException e) {
            // java.net.URI's message repeats the whole URI, password and all: give only its reason
            String why = e.getCause() instanceof URISyntaxException syntax
                    ? syntax.getReason() + " at index " + syntax.getIndex()
                            + " (percent-encode such characters in a password)"
                    : e.getMessage() != null && !e.getMessage().contains("@") && !e.getMessage().contains("://")
                            ? e.getMessage() : "it is not a Redis URI";
            throw bad(source, uri, why, REDIS_FORM);
        }
        boolean hasHost = parsed.getHost() != null && !parsed.getHost().isBlank();
        if (!hasHost && parsed.getSentinels().isEmpty() && parsed.getSocket() == null) {
            throw bad(source, uri, "it names no host", REDIS_FORM);
        }
        return uri;
    }

    /** An http(s) URL with a host, for the AWS SDK's {@code endpointOverride}. */
    static String httpEndpoint(String source, String url) {
        String form = "http://HOST:PORT or https://HOST[:PORT]";
        URI parsed;
        try {
            parsed = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw bad(source, url, "it is not a URL (" + e.getReason() + ")", form);
        }
        String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw bad(source, url, scheme.isEmpty() ? "it has no scheme" : "'" + scheme + ":' is not http or https",
                    form);
        }
        if (parsed.getHost() == null || parsed.getHost().isBlank()) {
            throw bad(source, url, "it names no host", form);
        }
        return url.trim();
    }

    /**
     * etcd client endpoints, comma-separated: each {@code http(s)://HOST:PORT} with a port and
     * nothing after it, as jetcd takes them.
     *
     * @return the endpoints, trimmed
     */
    static List<String> etcdEndpoints(String source, String value) {
        List<String> endpoints = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String endpoint = part.trim();
            if (endpoint.isEmpty()) {
                throw bad(source, value, "it has an empty endpoint", ETCD_FORM);
            }
            if (!endpoint.contains("://")) {
                throw bad(source, value, "'" + endpoint + "' has no scheme", ETCD_FORM);
            }
            URI parsed;
            try {
                parsed = new URI(endpoint);
            } catch (URISyntaxException e) {
                throw bad(source, value, "'" + endpoint + "' is not a URL (" + e.getReason() + ")", ETCD_FORM);
            }
            String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw bad(source, value, "'" + scheme + ":' is not http or https", ETCD_FORM);
            }
            if (parsed.getHost() == null || parsed.getHost().isBlank()) {
                throw bad(source, value, "'" + endpoint + "' names no host", ETCD_FORM);
            }
            if (parsed.getPort() < 1 || parsed.getPort() > 65535) {
                throw bad(source, value, "'" + endpoint + "' names no port (etcd's client port is usually 2379)",
                        ETCD_FORM);
            }
            boolean bare = (parsed.getRawPath() == null || parsed.getRawPath().isEmpty() || parsed.getRawPath().equals("/"))
                    && parsed.getRawQuery() == null && parsed.getRawFragment() == null && parsed.getRawUserInfo() == null;
            if (!bare) {
                throw bad(source, value, "'" + endpoint + "' has more than a scheme, host and port", ETCD_FORM);
            }
            endpoints.add(endpoint);
        }
        return endpoints;
    }

    /** The host and port of each etcd endpoint, unresolved, for {@link TcpProbe}. */
    static List<InetSocketAddress> etcdAddresses(List<String> endpoints) {
        return endpoints.stream().map(URI::create).map(u -> InetSocketAddress.createUnresolved(u.getHost(), u.getPort()))
                .toList();
    }

    /**
     * A ZooKeeper connect string: {@code HOST[:PORT]} (port 2181 if none), comma-separated,
     * optionally followed by a chroot path, as ZooKeeper's client takes it.
     *
     * @return the connect string, trimmed
     */
    static String zooKeeperConnect(String source, String value) {
        zooKeeperHosts(source, value);
        return value.trim();
    }

    /** The hosts of a connect string that {@link #zooKeeperConnect} accepted, unresolved, for {@link TcpProbe}. */
    static List<InetSocketAddress> zooKeeperAddresses(String connect) {
        return zooKeeperHosts("the ZooKeeper connect string", connect);
    }

    private static List<InetSocketAddress> zooKeeperHosts(String source, String value) {
        String connect = value.trim();
        if (connect.isEmpty()) {
            throw bad(source, value, "it names no host", ZOOKEEPER_FORM);
        }
        if (connect.contains("://")) {
            throw bad(source, value, "ZooKeeper takes HOST:PORT, without a scheme", ZOOKEEPER_FORM);
        }
        int chroot = connect.indexOf('/');
        if (chroot == 0) {
            throw bad(source, value, "it names no host", ZOOKEEPER_FORM);
        }
        if (chroot > 0 && (connect.length() == chroot + 1 || connect.endsWith("/") || connect.contains("//"))) {
            throw bad(source, value, "'" + connect.substring(chroot) + "' is not a chroot path (/NAME[/NAME...])",
                    ZOOKEEPER_FORM);
        }
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (String part : (chroot < 0 ? connect : connect.substring(0, chroot)).split(",", -1)) {
            String host = part.trim();
            int close = host.startsWith("[") ? host.indexOf(']') : -1;
            int colon = host.startsWith("[") ? host.indexOf(':', Math.max(0, close)) : host.lastIndexOf(':');
            String name = colon < 0 ? host : host.substring(0, colon);
            if (name.startsWith("[") && name.endsWith("]")) {
                name = name.substring(1, name.length() - 1);
            }
            if (name.isBlank() || name.contains(" ") || (!host.startsWith("[") && name.contains(":"))) {
                throw bad(source, value, host.isEmpty() ? "it has an empty host" : "'" + host + "' is not HOST[:PORT]",
                        ZOOKEEPER_FORM);
            }
            int port = ZOOKEEPER_DEFAULT_PORT;
            if (colon >= 0) {
                String digits = host.substring(colon + 1);
                if (!digits.matches("\\d{1,5}") || Integer.parseInt(digits) < 1 || Integer.parseInt(digits) > 65535) {
                    throw bad(source, value, "'" + digits + "' is not a port (1 to 65535)", ZOOKEEPER_FORM);
                }
                port = Integer.parseInt(digits);
            }
            hosts.add(InetSocketAddress.createUnresolved(name, port));
        }
        return hosts;
    }

    /**
     * A JDBC URL of PostgreSQL or MariaDB that names a host and a database; the drivers would
     * otherwise fall back to a database named after the user, or to none.
     */
    static String jdbcUrl(String source, String url) {
        String lower = url.trim().toLowerCase(Locale.ROOT);
        String rest;
        if (lower.startsWith("jdbc:postgresql:")) {
            rest = url.trim().substring("jdbc:postgresql:".length());
        } else if (lower.startsWith("jdbc:mariadb:")) {
            rest = url.trim().substring("jdbc:mariadb:".length());
            if (!rest.startsWith("//")) {
                throw bad(source, url, "a MariaDB URL starts jdbc:mariadb://", JDBC_FORM);
            }
        } else if (lower.startsWith("jdbc:mysql:")) {
            throw bad(source, url, "the CLI ships the MariaDB driver, which serves MySQL too: write jdbc:mariadb:"
                    + " instead of jdbc:mysql:", JDBC_FORM);
        } else {
            throw bad(source, url, lower.startsWith("jdbc:") ? "it is not a PostgreSQL or MariaDB URL"
                    : "it is not a JDBC URL (they start jdbc:)", JDBC_FORM);
        }
        String path = rest;
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        String database = path;
        if (path.startsWith("//")) {
            int slash = path.indexOf('/', 2);
            checkHosts(source, url, path.substring(2, slash < 0 ? path.length() : slash));
            database = slash < 0 ? "" : path.substring(slash + 1);
        }
        if (database.isBlank()) {
            throw bad(source, url, "it names no database", JDBC_FORM);
        }
        return url.trim();
    }

    private static void checkHosts(String source, String url, String hosts) {
        if (hosts.isBlank()) {
            throw bad(source, url, "it names no host", JDBC_FORM);
        }
        for (String host : hosts.split(",", -1)) {
            int colon = host.startsWith("[") ? host.indexOf(':', Math.max(0, host.indexOf(']'))) : host.lastIndexOf(':');
            String name = colon < 0 ? host : host.substring(0, colon);
            if (name.isBlank()) {
                throw bad(source, url, "it has an empty host", JDBC_FORM);
            }
            if (colon >= 0) {
                String port = host.substring(colon + 1);
                if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
                    throw bad(source, url, "'" + port + "' is not a port (1 to 65535)", JDBC_FORM);
                }
            }
        }
    }

    private static String scheme(String uri) {
        int colon = uri.indexOf("://");
        return colon < 0 ? "" : uri.substring(0, colon).trim().toLowerCase(Locale.ROOT);
    }

    private static CliException bad(String source, String value, String why, String form) {
        return new CliException(ExitCode.USAGE, source + ": '" + redacted(value) + "' is malformed: " + why + "; use "
                + form);
    }

    /** {@code value} with any password replaced by {@code ***}: URL parameters and user info. */
    static String redacted(String value) {
        String masked = value.replaceAll("(?i)(password=)[^&;]*", "$1***");
        int at = userInfoEnd(masked);
        if (at < 0) {
            return masked;
        }
        int start = masked.indexOf("://") + 3;
        int colon = masked.indexOf(':', start);
        // the user info runs to the last '@' of the address: a password may hold '@', '/' or ':' unencoded
        return colon >= 0 && colon < at ? masked.substring(0, colon + 1) + "***" + masked.substring(at) : masked;
    }

    /**
     * The index of the '@' that ends an address's user info: the last '@' after {@code ://}, unless
     * it lies in the query ({@code ?user=a@b}); -1 if none.
     */
    private static int userInfoEnd(String value) {
        int start = value.indexOf("://");
        if (start < 0) {
            return -1;
        }
        int at = value.lastIndexOf('@');
        int query = value.indexOf('?', start);
        if (query >= 0 && query < at && value.substring(query, at).contains("=")) {
            at = value.lastIndexOf('@', query);
        }
        return at > start ? at : -1;
    }
}
