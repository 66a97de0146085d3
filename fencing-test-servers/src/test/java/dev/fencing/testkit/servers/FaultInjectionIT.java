package dev.fencing.testkit.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The fault-injection means of the testkit work on the servers it started. */
class FaultInjectionIT {

    @Test
    void aRedisRestartLosesEveryKey() {
        RedisTestServer redis = TestServers.redisNodes(2).get(1);
        skipUnlessManaged(redis);
        redis.command("SET", "survives?", "no");
        redis.restartEmpty();
        assertThat(redis.command("GET", "survives?")).isNull();
        assertThat(redis.command("PING")).isEqualTo("PONG");
    }

    @Test
    void aKilledRedisRefusesConnectionsUntilStarted() {
        RedisTestServer redis = TestServers.redisNodes(2).get(1);
        skipUnlessManaged(redis);
        redis.kill();
        assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(RuntimeException.class);
        redis.start();
        assertThat(redis.command("PING")).isEqualTo("PONG");
    }

    @Test
    void severalIndependentRedisServersDoNotShareKeys() {
        List<RedisTestServer> nodes = TestServers.redisNodes(3);
        assertThat(nodes).extracting(RedisTestServer::port).doesNotHaveDuplicates();
        String key = "only-on-first-" + UUID.randomUUID();
        nodes.get(0).command("SET", key, "1");
        assertThat(nodes.get(2).command("GET", key)).isNull();
    }

    @Test
    void aPostgresRestartKeepsCommittedData() throws Exception {
        PostgresTestServer postgres = TestServers.postgres();
        skipUnlessManaged(postgres);
        String table = "restart_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement()) {
            statement.execute("create table " + table + " (v int)");
            statement.execute("insert into " + table + " values (42)");
        }
        postgres.restart();
        assertThat(count(postgres, table)).isEqualTo(42);

        postgres.kill();
        postgres.start();
        assertThat(count(postgres, table)).isEqualTo(42);
    }

    private static int count(PostgresTestServer postgres, String table) throws Exception {
        try (Connection connection = postgres.connect();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("select v from " + table)) {
            assertThat(result.next()).isTrue();
            return result.getInt(1);
        }
    }

    /** Skips a fault test on a server the testkit did not start (one given by a FENCING_* variable), saying why. */
    private static void skipUnlessManaged(TestServer server) {
        if (!server.isManaged()) {
            String reason = "fault injection needs a server the testkit started; " + server.describe()
                    + " came from a FENCING_* variable";
            System.err.println("SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
    }
}
