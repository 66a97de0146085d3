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
 * One table, one fence table: RowGuard keeps a table's fence entries in {@code fencing_fence} of
 * the data table's own schema (PostgreSQL) or database (MariaDB), whatever the connection's
 * search_path or current database finds first. Two services whose connections default to different
 * schemas/databases, each with the toolkit's migrations, writing the same table (one by its
 * qualified name) keep the marks of deleted rows in one place: a zombie cannot re-create a row a
 * newer holder deleted. (Found by the adversarial review: the fence table was named unqualified, so
 * each service used its own; this test failed on both databases.) A data table whose schema has no
 * fence table is refused, naming the schema.
 */
class FenceTableResolutionIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aZombieWhoseConnectionFindsAnotherFencingFenceIsRefusedByTheDataTablesOne(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        boolean postgres = server.vendor().equals("postgresql");
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        String resource = "account-" + id;
        try (Connection holder = db.getConnection(); Connection zombie = zombieConnection(server, db, holder)) {
            String qualified = (postgres ? "public" : holder.getCatalog()) + ".accounts";
            RowGuard holderTable = RowGuard.create("accounts", "id");
            RowGuard zombieTable = RowGuard.create(qualified, "id"); // another service: the same table, qualified
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

    /** A table in a schema without the toolkit's tables is refused before anything is written, naming that schema. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aTableWhoseSchemaHasNoFenceTableIsRefused(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        boolean postgres = server.vendor().equals("postgresql");
        DataSource bare = postgres ? db : server.freshDatabase(); // MariaDB: a database without the migrations
        String schema;
        try (Connection connection = bare.getConnection(); Statement statement = connection.createStatement()) {
            if (postgres) {
                statement.execute("CREATE SCHEMA IF NOT EXISTS bare_schema");
                schema = "bare_schema";
            } else {
                schema = connection.getCatalog();
            }
            statement.execute("CREATE TABLE IF NOT EXISTS " + schema + ".bare_accounts (id BIGINT PRIMARY KEY,"
                    + " balance BIGINT NOT NULL, fencing_token BIGINT NOT NULL DEFAULT 0)");
        }
        // the connection finds a fencing_fence (the migrated one), but not in the table's schema
        try (Connection connection = db.getConnection()) {
            RowGuard bareAccounts = RowGuard.create(schema + ".bare_accounts", "id");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> bareAccounts.upsert(connection,
                    FencingToken.of("bare-1", 3), Map.of("id", 1), Map.of("balance", 1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(schema + ".fencing_fence").hasMessageContaining("does not exist");
            try (Statement statement = connection.createStatement();
                    ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM " + schema + ".bare_accounts")) {
                result.next();
                assertThat(result.getLong(1)).isZero();
            }
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
