package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Empty databases on the testkit's PostgreSQL, so each application context starts on a schema of its own. */
public final class TestDatabases {

    private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(.*)");

    private TestDatabases() {}

    /** The JDBC URL (credentials included) of a new, empty database. */
    public static String freshPostgresUrl() {
        PostgresTestServer postgres = TestServers.postgres();
        String name = "boot_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on " + postgres.describe(), e);
        }
        Matcher url = URL.matcher(postgres.jdbcUrl());
        if (!url.matches()) {
            throw new IllegalStateException("cannot find the database name in " + postgres.describe());
        }
        return url.group(1) + name + url.group(3);
    }
}
