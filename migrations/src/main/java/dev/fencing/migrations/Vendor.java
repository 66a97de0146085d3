package dev.fencing.migrations;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** The databases the toolkit's SQL supports, and where each one's migrations live. */
public enum Vendor {
    /** PostgreSQL 12 or newer. */
    POSTGRESQL("classpath:db/fencing/postgresql"),
    /** MySQL 8 or MariaDB 10.6 or newer: one dialect. */
    MYSQL("classpath:db/fencing/mysql");

    private final String location;

    Vendor(String location) {
        this.location = location;
    }

    /** The Flyway location of this vendor's migrations, to add to an application's own configuration. */
    public String location() {
        return location;
    }

    /**
     * The vendor of {@code connection}'s database.
     *
     * @throws IllegalArgumentException for any other database
     */
    public static Vendor of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String name = product.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return MYSQL;
        }
        throw new IllegalArgumentException("unsupported database '" + product + "'; the fencing toolkit's SQL supports"
                + " PostgreSQL and MySQL/MariaDB");
    }
}
