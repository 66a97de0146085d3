package dev.fencing.jdbc;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;

/**
 * {@link JdbcFencedStore} on the migrations' {@code fencing_store} table, on both databases, at
 * each database's default isolation (PostgreSQL READ COMMITTED, MariaDB REPEATABLE READ) and at
 * the other one.
 */
class JdbcFencedStoreIT {

    abstract static class OnDatabase extends FencedStoreContract {
        abstract SqlTestServer server();

        DataSource dataSource() {
            return Databases.migrated(server());
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return JdbcFencedStore.create(dataSource(), JdbcFencedStore.DEFAULT_TABLE, policy, FencingListener.NONE);
        }
    }

    @Nested
    class Postgres extends OnDatabase {
        @Override
        SqlTestServer server() {
            return Databases.postgres();
        }
    }

    @Nested
    class MariaDb extends OnDatabase {
        @Override
        SqlTestServer server() {
            return Databases.mariaDb();
        }
    }

    @Nested
    class PostgresRepeatableRead extends OnDatabase {
        @Override
        SqlTestServer server() {
            return Databases.postgres();
        }

        @Override
        DataSource dataSource() {
            return Databases.migrated(server(), Connection.TRANSACTION_REPEATABLE_READ);
        }
    }

    @Nested
    class MariaDbReadCommitted extends OnDatabase {
        @Override
        SqlTestServer server() {
            return Databases.mariaDb();
        }

        @Override
        DataSource dataSource() {
            return Databases.migrated(server(), Connection.TRANSACTION_READ_COMMITTED);
        }
    }
}
