package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.testkit.servers.TestServers;
import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The toolkit's row in the application's Flyway history must never stop a start: switching the
 * toolkit's migrations off, on again, and a failed application of its script on MariaDB (which
 * commits DDL as it goes, so Flyway records the failure) — real contexts, restarted on one database.
 */
class FlywayHistoryIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    private static ConfigurableApplicationContext start(String url, String... extra) {
        String[] args = new String[extra.length + 3];
        args[0] = "--spring.main.web-application-type=none";
        args[1] = "--spring.main.banner-mode=off";
        args[2] = "--spring.datasource.url=" + url;
        System.arraycopy(extra, 0, args, 3, extra.length);
        return new SpringApplication(App.class).run(args);
    }

    private static long toolkitRows(ConfigurableApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                "SELECT count(*) FROM flyway_schema_history WHERE script = 'R__fencing_tables.sql'", Long.class);
    }

    @Test
    void switchingTheToolkitsMigrationsOffAndOnAgainStartsCleanly() {
        String url = TestDatabases.freshPostgresUrl();
        try (ConfigurableApplicationContext on = start(url)) {
            assertThat(toolkitRows(on)).isEqualTo(1);
        }
        try (ConfigurableApplicationContext off = start(url, "--fencing.flyway.enabled=false")) {
            assertThat(toolkitRows(off)).as("its row is gone, so validation does not miss it").isZero();
        }
        try (ConfigurableApplicationContext again = start(url)) {
            assertThat(toolkitRows(again)).as("applied again").isEqualTo(1);
        }
    }

    @Test
    void aFailedApplicationOnMariaDbDoesNotNeedARepairBeforeTheNextStart() throws Exception {
        DataSource db = TestServers.mariaDb().freshDatabase();
        String url;
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            url = connection.getMetaData().getURL();
            if (!url.contains("password") && TestServers.mariaDb().jdbcUrl().contains("?")) {
                url = url + TestServers.mariaDb().jdbcUrl().substring(TestServers.mariaDb().jdbcUrl().indexOf('?'));
            }
            // an existing application's database (so Flyway baselines it), and something in the way of
            // the script: a view where it expects its table
            statement.execute("CREATE VIEW fencing_store AS SELECT 1 AS x");
        }
        String failing = url;
        assertThatThrownBy(() -> start(failing, "--spring.flyway.baseline-on-migrate=true").close()).as("the first start fails on the view")
                .hasStackTraceContaining("fencing_store");

        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP VIEW fencing_store"); // the operator removes what was in the way
        }
        try (ConfigurableApplicationContext next = start(url, "--spring.flyway.baseline-on-migrate=true")) {
            assertThat(toolkitRows(next)).as("applied in full, without a repair").isEqualTo(1);
            assertThat(new JdbcTemplate(next.getBean(DataSource.class)).queryForObject(
                    "SELECT count(*) FROM flyway_schema_history WHERE success = false", Long.class)).isZero();
        }
    }
}
