package dev.fencing.migrations;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the toolkit's own tables — {@code fencing_fence} (the fence row of fencing-jdbc),
 * {@code fencing_token_counter} (the Postgres advisory provider's token counter) and
 * {@code fencing_store} (fencing-jdbc's key-value store) — to a database.
 *
 * <p>They run under their own schema-history table, {@value #HISTORY_TABLE}, so they never collide
 * with the application's Flyway history. The scripts are repeatable migrations
 * ({@code R__fencing_tables.sql}) made of idempotent DDL: applying them again changes nothing,
 * and they can equally be added to an application's own Flyway run by adding
 * {@link Vendor#location()} to its locations (a repeatable migration has no version, so it cannot
 * clash with the application's versions).
 *
 * <pre>{@code
 * FencingMigrations.migrate(dataSource);                       // one line, own history table
 *
 * Flyway.configure().dataSource(dataSource)                    // or inside your own Flyway run
 *       .locations("classpath:db/migration", Vendor.POSTGRESQL.location())
 *       .load().migrate();
 * }</pre>
 */
public final class FencingMigrations {

    /** The schema-history table of the toolkit's migrations. */
    public static final String HISTORY_TABLE = "fencing_schema_history";

    private FencingMigrations() {}

    /**
     * Creates or updates the toolkit's tables in {@code dataSource}'s default schema.
     *
     * @return Flyway's report; {@code migrationsExecuted} is 0 when everything was already there
     * @throws IllegalArgumentException if the database is neither PostgreSQL nor MySQL/MariaDB
     * @throws org.flywaydb.core.api.FlywayException if a migration fails
     */
    public static MigrateResult migrate(DataSource dataSource) {
        return configure(dataSource).load().migrate();
    }

    /**
     * The Flyway configuration {@link #migrate} uses — the vendor's location, the toolkit's history
     * table, baseline on a non-empty schema — to adjust (for example {@code .schemas("fencing")})
     * before {@code load().migrate()}.
     */
    public static FluentConfiguration configure(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(vendorOf(dataSource).location())
                .table(HISTORY_TABLE)
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .baselineDescription("fencing toolkit history");
    }

    static Vendor vendorOf(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return Vendor.of(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to find the database vendor: " + e.getMessage(), e);
        }
    }
}
