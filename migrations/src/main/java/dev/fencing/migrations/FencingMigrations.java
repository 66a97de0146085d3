package dev.fencing.migrations;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.jspecify.annotations.Nullable;

/**
 * Applies the toolkit's own tables — {@code fencing_fence} (the fence row of fencing-jdbc),
 * {@code fencing_token_counter} (the Postgres advisory provider's token counter) and
 * {@code fencing_store} (fencing-jdbc's key-value store) — to a database.
 *
 * <p>They run under their own schema-history table, {@value #HISTORY_TABLE}, so they never collide
 * with the application's Flyway history. The scripts are repeatable migrations
 * ({@code R__fencing_tables.sql}) made of idempotent DDL: applying them again changes nothing, and a
 * changed script converts the tables of earlier installs (key columns that compare exactly, times
 * past 2038, and {@code fencing_fence}'s two namespaces: locks' fence rows and the row guard's
 * entries, each existing row kept in every namespace it could belong to, with its token). They can equally be added to an application's own Flyway run by adding
 * {@link Vendor#location()} to its locations (a repeatable migration has no version, so it cannot
 * clash with the application's versions); then there is one history and no order to keep.
 *
 * <h2>Before or after the application's Flyway</h2>
 * Both orders work. After: the toolkit's history sits next to the application's. Before, on a
 * schema that holds nothing else: Flyway would refuse the application's first run ("non-empty
 * schema ... but no schema history table"), and {@code baselineOnMigrate} would then baseline at
 * version 1 and skip the application's {@code V1}. So {@link #migrate(DataSource)} then also records
 * a baseline at version 0 in {@value #APPLICATION_HISTORY_TABLE} (Flyway's default history table),
 * and the application's first run applies its {@code V1} onwards. An application with another
 * history table passes its name to {@link #migrate(DataSource, String)}; one that does not use
 * Flyway passes {@code null}.
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

    /** The schema-history table of an application's Flyway unless it names another: Flyway's default. */
    public static final String APPLICATION_HISTORY_TABLE = "flyway_schema_history";

    /**
     * Creates or updates the toolkit's tables in {@code dataSource}'s default schema; on a schema
     * that holds nothing else, also records a baseline at version 0 in
     * {@value #APPLICATION_HISTORY_TABLE} so that the application's first Flyway run still applies
     * its {@code V1} (see the class comment).
     *
     * @return Flyway's report; {@code migrationsExecuted} is 0 when everything was already there
     * @throws IllegalArgumentException if the database is neither PostgreSQL nor MySQL/MariaDB
     * @throws org.flywaydb.core.api.FlywayException if a migration fails
     */
    public static MigrateResult migrate(DataSource dataSource) {
        return migrate(dataSource, APPLICATION_HISTORY_TABLE);
    }

    /**
     * As {@link #migrate(DataSource)} for an application whose Flyway keeps its history in
     * {@code applicationHistoryTable}; {@code null} for an application that does not use Flyway
     * (then no baseline is recorded).
     *
     * @throws IllegalArgumentException if {@code applicationHistoryTable} is not a plain SQL name
     */
    public static MigrateResult migrate(DataSource dataSource, @Nullable String applicationHistoryTable) {
        FluentConfiguration configuration = configure(dataSource);
        if (applicationHistoryTable != null) {
            Identifiers.requireTable(applicationHistoryTable);
            ApplicationBaseline.recordIfOnlyOurs(dataSource, applicationHistoryTable);
        }
        return configuration.load().migrate();
    }

    /**
     * The Flyway configuration {@link #migrate} uses — the vendor's location, the toolkit's history
     * table, baseline on a non-empty schema — to adjust (for example {@code .schemas("fencing")})
     * before {@code load().migrate()}. It does not record the application's baseline that
     * {@link #migrate(DataSource)} records: run this before the application's first Flyway
     * migration on an empty schema and that run fails on a non-empty schema without history —
     * run the application's Flyway first, or use {@link #migrate(DataSource, String)}.
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
