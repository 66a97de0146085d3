package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application whose Flyway uses its own naming would skip the toolkit's {@code
 * R__fencing_tables.sql} without a word: the start must fail instead, naming the setting (a real
 * context on the testkit's PostgreSQL).
 */
class FlywayNamingIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    private static ConfigurableApplicationContext start(String... extra) {
        String[] args = new String[extra.length + 3];
        args[0] = "--spring.main.web-application-type=none";
        args[1] = "--spring.main.banner-mode=off";
        args[2] = "--spring.datasource.url=" + TestDatabases.freshPostgresUrl();
        System.arraycopy(extra, 0, args, 3, extra.length);
        return new SpringApplication(App.class).run(args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"--spring.flyway.repeatable-sql-migration-prefix=RR",
            "--spring.flyway.sql-migration-separator=-", "--spring.flyway.sql-migration-suffixes=.pgsql"})
    void aNamingUnderWhichTheScriptWouldBeSkippedFailsTheStartNamingTheSetting(String setting) {
        String property = setting.substring(2, setting.indexOf('='));
        assertThatThrownBy(() -> start(setting).close()).hasStackTraceContaining(property)
                .hasStackTraceContaining("R__fencing_tables.sql").hasStackTraceContaining("fencing.flyway.enabled=false");
    }

    @Test
    void theDefaultNamingStartsAndCreatesTheTables() {
        try (ConfigurableApplicationContext context = start("--spring.flyway.sql-migration-suffixes=.sql,.pgsql")) {
            assertThat(context.isActive()).isTrue();
        }
    }
}
