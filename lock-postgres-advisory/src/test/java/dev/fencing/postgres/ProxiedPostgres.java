package dev.fencing.postgres;

import dev.fencing.testkit.servers.LaggingProxy;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.ds.PGSimpleDataSource;

/** A database of the testkit's PostgreSQL reached through a {@link LaggingProxy}. */
final class ProxiedPostgres {

    private static final Pattern HOST_AND_PORT = Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/.*");

    private ProxiedPostgres() {}

    /** A proxy in front of the server that serves {@code database}. */
    static LaggingProxy proxyTo(PGSimpleDataSource database) {
        Matcher url = hostAndPort(database.getURL());
        return LaggingProxy.start(url.group(1), Integer.parseInt(url.group(2)));
    }

    /** {@code database}, with its user and password, reached through {@code proxy}. */
    static PGSimpleDataSource through(LaggingProxy proxy, PGSimpleDataSource database) {
        Matcher url = hostAndPort(database.getURL());
        PGSimpleDataSource viaProxy = new PGSimpleDataSource();
        viaProxy.setURL(database.getURL().replace(url.group(1) + ":" + url.group(2), "127.0.0.1:" + proxy.port()));
        viaProxy.setUser(database.getUser());
        viaProxy.setPassword(database.getPassword());
        return viaProxy;
    }

    private static Matcher hostAndPort(String jdbcUrl) {
        Matcher url = HOST_AND_PORT.matcher(jdbcUrl);
        if (!url.matches()) {
            throw new IllegalStateException("cannot find host and port in " + jdbcUrl);
        }
        return url;
    }
}
