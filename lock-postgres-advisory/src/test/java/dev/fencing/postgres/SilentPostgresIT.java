package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.SilentServer;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL that accepts TCP and never answers: {@code build()}'s preflight gives up within
 * {@code connectTimeout} (plus a slack of 1.5 s) with one message naming the data source and the
 * bound, through a plain {@link PGSimpleDataSource} (whose defaults — loginTimeout and
 * socketTimeout 0 — wait forever) and through HikariCP (whose own connectionTimeout is 30 s); a
 * shorter setting gives up sooner.
 */
@Timeout(60)
class SilentPostgresIT {

    private static final Duration SLACK = Duration.ofMillis(1500);

    private final SilentServer silent = SilentServer.start();

    @AfterEach
    void close() {
        silent.close();
    }

    private PGSimpleDataSource plain() {
        PGSimpleDataSource plain = new PGSimpleDataSource();
        plain.setUrl("jdbc:postgresql://" + silent.hostPort() + "/postgres");
        plain.setUser("postgres");
        return plain;
    }

    private static void givesUpWithin(Duration bound, DataSource dataSource, String named) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> PostgresAdvisoryLockProvider.builder(dataSource).connectTimeout(bound).build())
                .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.getMessage())
                        .contains("Postgres advisory lock provider on " + named)
                        .contains("PostgreSQL did not answer")
                        .contains("connectTimeout " + bound.toMillis() + " ms"));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("gave up after %s with connectTimeout %s", took, bound)
                .isBetween(bound.minusMillis(100), bound.plus(SLACK));
    }

    @Test
    void aPlainDataSourceGivesUpWithinTheConnectTimeout() {
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            givesUpWithin(bound, plain(), "PGSimpleDataSource");
        }
    }

    @Test
    void aHikariPoolGivesUpWithinTheConnectTimeoutNotItsOwn30Seconds() {
        HikariConfig config = new HikariConfig();
        config.setDataSource(plain());
        config.setInitializationFailTimeout(-1); // start without a connection, as a pool does on a slow start
        config.setPoolName("silent");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
                givesUpWithin(bound, pool, "HikariDataSource");
            }
        }
    }
}
