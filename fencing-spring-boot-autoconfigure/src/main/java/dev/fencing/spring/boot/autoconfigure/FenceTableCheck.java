package dev.fencing.spring.boot.autoconfigure;

import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The start-up check of a fence bean's table ({@code fencing.jdbc.check-table}, on by default): run
 * once all singletons exist, so after the application's Flyway run. A missing table, or one from an
 * install this build must convert, fails the start with a {@link FencingStartupException} whose
 * action is the Boot way to get the table (Flyway on, the migrations module, the property to change).
 * A database that cannot be reached is logged and left to the first request: Boot itself starts
 * without its database unless Flyway needs it.
 */
final class FenceTableCheck {

    private static final Logger LOG = LoggerFactory.getLogger(FenceTableCheck.class);

    /** One fence's check: {@code JdbcFence::checkTable} or {@code JdbiFence::checkTable}. */
    @FunctionalInterface
    interface Check {
        void run() throws SQLException;
    }

    private FenceTableCheck() {}

    /**
     * Runs {@code check} of the bean described as {@code bean}.
     *
     * @throws FencingStartupException if the table is missing or must be converted
     */
    static void run(String bean, Check check, Environment environment) {
        try {
            check.run();
        } catch (IllegalStateException unusable) {
            throw new FencingStartupException("The " + bean + " cannot fence writes: " + unusable.getMessage(),
                    fix(environment), unusable);
        } catch (SQLException | RuntimeException unreachable) {
            LOG.warn("Could not check the table of the {} at start-up ({}); the first fenced write will.", bean,
                    unreachable.toString());
        }
    }

    /** How a Boot application gets the toolkit's tables, given what it has on the class path and set. */
    static String fix(Environment environment) {
        ClassLoader loader = FenceTableCheck.class.getClassLoader();
        String opt = " To start without this check, set fencing.jdbc.check-table=false.";
        if (!ClassUtils.isPresent("org.flywaydb.core.Flyway", loader)
                || !ClassUtils.isPresent("org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration", loader)) {
            return "Add org.springframework.boot:spring-boot-starter-flyway and dev.fencing:migrations: the toolkit's"
                    + " tables are then created by the application's own Flyway run at start-up. Or create them with"
                    + " FencingMigrations.migrate(dataSource) (module migrations) before the start." + opt;
        }
        if (!ClassUtils.isPresent("dev.fencing.migrations.FencingMigrations", loader)) {
            return "Add dev.fencing:migrations: its scripts join the application's Flyway run and create the toolkit's"
                    + " tables." + opt;
        }
        if (!environment.getProperty("spring.flyway.enabled", Boolean.class, true)) {
            return "Flyway is off (spring.flyway.enabled=false): turn it on, and the toolkit's migrations run with the"
                    + " application's; or run FencingMigrations.migrate(dataSource) before the start." + opt;
        }
        if (!environment.getProperty("fencing.flyway.enabled", Boolean.class, true)) {
            return "The toolkit's migrations are off (fencing.flyway.enabled=false): turn them on, or create the"
                    + " tables with FencingMigrations.migrate(dataSource) before the start." + opt;
        }
        return "Flyway ran without creating this table where the fence looks: check fencing.jdbc.fence-table against"
                + " spring.flyway.default-schema / spring.flyway.schemas (an unqualified name is looked up on the"
                + " connection's search_path or current database)." + opt;
    }
}
