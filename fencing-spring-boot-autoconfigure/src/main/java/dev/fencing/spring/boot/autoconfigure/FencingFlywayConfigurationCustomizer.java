package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.migrations.Vendor;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.api.Location;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;

/**
 * Adds the toolkit's migrations for the database's vendor ({@link Vendor#location()}) to the
 * locations of the application's own Flyway run, so the toolkit's tables are created and kept up
 * to date in the application's history table, in the same run as its own migrations.
 *
 * <p>They are repeatable migrations ({@code R__fencing_tables.sql}) of idempotent DDL: they have no
 * version, so they can never collide with the application's {@code V1}, {@code V2}, ...; Flyway
 * applies them after the versioned ones of the same run, and again only when the toolkit ships a
 * changed script. A location the application already scans (the same folder, or one above it) is
 * not added again. Naming settings under which Flyway would not find {@code R__fencing_tables.sql}
 * (another repeatable prefix, separator or suffix) fail the start, naming the setting. On a database the
 * toolkit does not support (H2, Oracle, ...) nothing is added and a warning says so.
 */
public final class FencingFlywayConfigurationCustomizer implements FlywayConfigurationCustomizer {

    private static final Logger LOG = LoggerFactory.getLogger(FencingFlywayConfigurationCustomizer.class);

    @Override
    public void customize(FluentConfiguration configuration) {
        Vendor vendor = vendorOf(configuration.getDataSource());
        if (vendor == null) {
            return;
        }
        requireNamingThatFindsTheScripts(configuration);
        String fencing = vendor.location();
        List<String> locations = new ArrayList<>(Arrays.stream(configuration.getLocations())
                .map(Location::getDescriptor).toList());
        if (locations.stream().noneMatch(location -> covers(location, fencing))) {
            locations.add(fencing);
            configuration.locations(locations.toArray(String[]::new));
        }
        addCallback(configuration, new ToolkitHistoryCallback(true));
    }

    /**
     * The toolkit's script is {@code R__fencing_tables.sql}: under other naming settings Flyway would
     * skip it without a word, the start would succeed and the first fenced write would fail on a
     * missing table. So the start fails here instead, naming the setting.
     *
     * @throws IllegalStateException naming the Spring property, its value and the ways out
     */
    static void requireNamingThatFindsTheScripts(FluentConfiguration configuration) {
        String problem = null;
        if (!"R".equals(configuration.getRepeatableSqlMigrationPrefix())) {
            problem = "spring.flyway.repeatable-sql-migration-prefix is '" + configuration.getRepeatableSqlMigrationPrefix()
                    + "'";
        } else if (!"__".equals(configuration.getSqlMigrationSeparator())) {
            problem = "spring.flyway.sql-migration-separator is '" + configuration.getSqlMigrationSeparator() + "'";
        } else if (!Arrays.asList(configuration.getSqlMigrationSuffixes()).contains(".sql")) {
            problem = "spring.flyway.sql-migration-suffixes is " + Arrays.toString(configuration.getSqlMigrationSuffixes());
        }
        if (problem != null) {
            throw new IllegalStateException(problem + ", so Flyway would skip the fencing toolkit's R__fencing_tables.sql"
                    + " (its tables would be missing at the first fenced write). Keep Flyway's default naming for it"
                    + " (prefix 'R', separator '__', suffix '.sql' among yours), or set fencing.flyway.enabled=false and"
                    + " apply the toolkit's tables with FencingMigrations.migrate(dataSource), under their own history"
                    + " table");
        }
    }

    /** Adds {@code callback} to the configuration's own callbacks (setting callbacks replaces them). */
    static void addCallback(FluentConfiguration configuration, Callback callback) {
        List<Callback> callbacks = new ArrayList<>(Arrays.asList(configuration.getCallbacks()));
        callbacks.add(callback);
        configuration.callbacks(callbacks.toArray(Callback[]::new));
    }

    /** Whether Flyway already scans {@code wanted} through {@code location} (the same folder or one above it). */
    static boolean covers(String location, String wanted) {
        String folder = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
        return wanted.equals(folder) || wanted.startsWith(folder + "/");
    }

    private static @Nullable Vendor vendorOf(@Nullable DataSource dataSource) {
        if (dataSource == null) {
            LOG.warn("The fencing toolkit's migrations were not added to Flyway: its configuration has no DataSource");
            return null;
        }
        try (Connection connection = dataSource.getConnection()) {
            return Vendor.of(connection);
        } catch (IllegalArgumentException e) {
            LOG.warn("The fencing toolkit's migrations were not added to Flyway: {} (set fencing.flyway.enabled=false"
                    + " to silence this)", e.getMessage());
            return null;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to find the database vendor for the fencing toolkit's"
                    + " migrations: " + e.getMessage(), e);
        }
    }
}
