package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.jdbc.JdbcFence;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code spring.flyway.schemas=app} (or {@code default-schema}) makes the application's Flyway run
 * create the toolkit's tables in {@code app}; the connections' search path still starts at
 * {@code public}. The auto-configured Postgres provider and fences must find the tables where Flyway
 * put them (a real context on the testkit's PostgreSQL).
 */
class FlywaySchemasIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @ParameterizedTest
    @ValueSource(strings = {"--spring.flyway.schemas=app", "--spring.flyway.default-schema=app"})
    void theProviderAndTheFencesUseTheTablesWhereFlywayCreatedThem(String setting) throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplication(App.class).run(
                "--spring.main.web-application-type=none", "--spring.main.banner-mode=off",
                "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(), "--fencing.lock.type=postgres", setting)) {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            assertThat(jdbc.queryForObject("SELECT to_regclass('app.fencing_fence') IS NOT NULL", Boolean.class)).isTrue();
            assertThat(jdbc.queryForObject("SELECT to_regclass('public.fencing_fence') IS NULL", Boolean.class)).isTrue();

            LockProvider locks = context.getBean(LockProvider.class);
            JdbcFence fence = context.getBean(JdbcFence.class);
            FencingToken token;
            try (Lease lease = locks.tryAcquire("account-7", LeaseOptions.ofDefaults()).orElseThrow()) {
                token = lease.token();
                fence.inTransaction(token, connection -> null);
            }
            assertThat(jdbc.queryForObject("SELECT token FROM app.fencing_fence WHERE resource = 'account-7'", Long.class))
                    .isEqualTo(token.value());
            assertThatThrownBy(() -> fence.inTransaction(FencingToken.of("account-7", token.value() - 1), c -> null))
                    .isInstanceOf(StaleTokenException.class);
        }
    }
}
