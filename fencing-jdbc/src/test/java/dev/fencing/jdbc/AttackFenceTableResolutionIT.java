package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ATTACK (adversarial review, branch attack-stores): one table, two fence tables. FencedTable names
 * the DATA table as the catalog resolves it (schema-qualified), but reads and writes its fence
 * entries in {@code fencing_fence} UNQUALIFIED — whichever one the connection's search_path
 * (PostgreSQL) or current database (MariaDB) finds. Two services whose connections default to
 * different schemas/databases, each with the toolkit's migrations, writing the same table by its
 * qualified name, keep the marks of deleted rows in different fence tables: a zombie re-creates a
 * row a newer holder deleted.
 */
class AttackFenceTableResolutionIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aZombieWhoseConnectionFindsAnotherFencingFenceRecreatesADeletedRow(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        boolean postgres = server.vendor().equals("postgresql");
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        String resource = "account-" + id;
        try (Connection holder = db.getConnection(); Connection zombie = zombieConnection(server, db, holder)) {
            String qualified = (postgres ? "public" : holder.getCatalog()) + ".accounts";
            FencedTable holderTable = FencedTable.of("accounts", "id");
            FencedTable zombieTable = FencedTable.of(qualified, "id"); // another service: the same table, qualified
            holderTable.upsert(holder, FencingToken.of(resource, 9), Map.of("id", id), Map.of("balance", 1));
            holderTable.delete(holder, FencingToken.of(resource, 10), Map.of("id", id));

            Throwable refused = null;
            try {
                zombieTable.upsert(zombie, FencingToken.of(resource, 7), Map.of("id", id), Map.of("balance", 70));
            } catch (StaleTokenException e) {
                refused = e;
            }
            try (Statement statement = holder.createStatement();
                    ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM accounts WHERE id = " + id)) {
                result.next();
                assertThat(result.getLong(1)).as("row deleted with token 10, re-created by token 7 through " + qualified
                        + " from a connection whose fencing_fence is another one").isZero();
            }
            assertThat(refused).isInstanceOf(StaleTokenException.class);
        }
    }

    /** A connection of another service: its own schema (PostgreSQL) or database (MariaDB), migrated. */
    private static Connection zombieConnection(SqlTestServer server, DataSource db, Connection holder)
            throws SQLException {
        if (server.vendor().equals("postgresql")) {
            try (Statement statement = holder.createStatement()) {
                statement.execute("CREATE SCHEMA IF NOT EXISTS tenant_b");
                statement.execute("CREATE TABLE IF NOT EXISTS tenant_b.fencing_fence (LIKE public.fencing_fence"
                        + " INCLUDING ALL)");
            }
            Connection zombie = db.getConnection();
            try (Statement statement = zombie.createStatement()) {
                statement.execute("SET search_path TO tenant_b, public");
            }
            return zombie;
        }
        DataSource other = server.freshDatabase();
        FencingMigrations.migrate(other);
        return other.getConnection();
    }
}
