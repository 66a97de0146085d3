package dev.fencing.spring.integration;

import dev.fencing.core.LockProvider;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.testkit.servers.TestServers;
import javax.sql.DataSource;

/**
 * The registry's contract over Postgres advisory locks: every registry its own provider on the test
 * server's database, each lease on a session of its own.
 */
class PostgresFencedLockRegistryIT extends FencedLockRegistryContract {

    private static DataSource database;

    private static synchronized DataSource database() {
        if (database == null) {
            DataSource fresh = TestServers.postgres().freshDatabase();
            FencingMigrations.migrate(fresh);
            database = fresh;
        }
        return database;
    }

    @Override
    protected LockProvider newProvider() {
        return PostgresAdvisoryLockProvider.create(database());
    }
}
