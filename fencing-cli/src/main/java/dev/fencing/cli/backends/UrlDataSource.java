package dev.fencing.cli.backends;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A connection per call from a JDBC URL: enough for the CLI, which holds few connections at a
 * time. Connecting, and waiting for each reply, give up after the given timeout unless the URL
 * sets {@code connectTimeout} or {@code socketTimeout} itself (seconds for PostgreSQL, milliseconds
 * for MariaDB).
 */
final class UrlDataSource implements DataSource {

    private final String url;
    private final Properties defaults = new Properties();

    UrlDataSource(String url, Duration connectTimeout) {
        this.url = url;
        String lower = url.toLowerCase(Locale.ROOT);
        String bound = postgres() ? Long.toString(Math.max(1, connectTimeout.toSeconds()))
                : Long.toString(connectTimeout.toMillis());
        if (!lower.contains("connecttimeout=")) {
            defaults.setProperty("connectTimeout", bound);
        }
        if (!lower.contains("sockettimeout=")) {
            defaults.setProperty("socketTimeout", bound); // a server that stops answering fails the call, not hangs it
        }
    }

    /** Whether this is a PostgreSQL URL (else MariaDB). */
    boolean postgres() {
        return url.toLowerCase(Locale.ROOT).startsWith("jdbc:postgresql:");
    }

    @Override
    public Connection getConnection() throws SQLException {
        return DriverManager.getConnection(url, defaults);
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // not used
    }

    @Override
    public void setLoginTimeout(int seconds) {
        DriverManager.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() {
        return DriverManager.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no parent logger");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }

    /** The URL without its password, for messages. */
    static String redacted(String url) {
        return Endpoints.redacted(url);
    }
}
