package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.propagation.spring.FencingTokenInterceptor;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * A ledger service as a team would build it from docs/propagation.md: Spring MVC, PostgreSQL, a
 * handler writing through the {@code JdbcFence} bean with the caller's token, and
 * {@code fencing.propagation.allowed-locks=billing-scheduler}. Two workers call it: the leader of
 * {@code billing-scheduler}, and one started with the typo {@code billing-schedular}, which leads
 * its own lock alone. The typo'd worker is refused as foreign, its lock gets no fence row, and the
 * refusal is counted.
 */
class FencingPropagationDeclarationIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Ledger.class)
    static class LedgerApp {}

    @RestController
    static class Ledger {

        private final JdbcFence fence;

        Ledger(JdbcFence fence) {
            this.fence = fence;
        }

        @PostMapping("/ledger/entries")
        void add(FencingToken token) throws SQLException {
            fence.inTransaction(token, connection -> Boolean.TRUE);
        }
    }

    @Test
    void aWorkerWithATypoInItsLockNameIsRefusedCountedAndLeavesNoFenceRow() throws Exception {
        RedisTestServer redis = TestServers.redis();
        String[] args = {"--server.port=0", "--spring.main.banner-mode=off",
            "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(),
            "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
            "--fencing.propagation.allowed-locks=billing-scheduler"};
        try (ConfigurableApplicationContext context = new SpringApplication(LedgerApp.class).run(args)) {
            String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
            RestClient leader = RestClient.builder().baseUrl(base)
                    .requestInterceptor(FencingTokenInterceptor.of(FencingToken.of("billing-scheduler", 4))).build();
            RestClient typo = RestClient.builder().baseUrl(base)
                    .requestInterceptor(FencingTokenInterceptor.of(FencingToken.of("billing-schedular", 9))).build();

            leader.post().uri("/ledger/entries").retrieve().toBodilessEntity();
            assertThatThrownBy(() -> typo.post().uri("/ledger/entries").retrieve().toBodilessEntity())
                    .isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                        assertThat(e.boundResource()).isEqualTo("billing-scheduler");
                        assertThat(e.key()).isEqualTo("POST /ledger/entries");
                    });

            DataSource db = context.getBean(DataSource.class);
            assertThat(fenceRow(db, "billing-scheduler")).hasValue(4);
            assertThat(fenceRow(db, "billing-schedular")).as("the typo'd lock's fence row").isEmpty();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("fencing.store.writes").tag("outcome", "foreign").counter().count()).isEqualTo(1);
        }
    }

    @Test
    void aBadDeclarationFailsTheStartNamingTheProperty() {
        String[] args = {"--server.port=0", "--spring.main.banner-mode=off",
            "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(), "--fencing.propagation.allowed-locks=*"};
        assertThatThrownBy(() -> new SpringApplication(LedgerApp.class).run(args).close())
                .hasStackTraceContaining("fencing.propagation.allowed-locks").hasStackTraceContaining("'*'");
    }

    private static OptionalLong fenceRow(DataSource db, String lock) throws SQLException {
        try (Connection connection = db.getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT token FROM fencing_fence WHERE kind = 'lock' AND resource = ?")) {
            select.setString(1, lock);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? OptionalLong.of(row.getLong(1)) : OptionalLong.empty();
            }
        }
    }
}
