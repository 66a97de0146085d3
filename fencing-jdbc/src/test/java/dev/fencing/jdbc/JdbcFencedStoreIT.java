package dev.fencing.jdbc;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.LostReplies;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;

/**
 * {@link JdbcFencedStore} on the migrations' {@code fencing_store} table, on both databases, at
 * each database's default isolation (PostgreSQL READ COMMITTED, MariaDB REPEATABLE READ) and at
 * the other one. Their lost replies are the contract's, through a proxy that drops the reply to the
 * store's {@code UPDATE}.
 */
class JdbcFencedStoreIT {

    abstract static class OnDatabase extends FencedStoreContract {
        abstract SqlTestServer server();

        /** The database's connections as the store gets them (at an isolation level of the test's). */
        DataSource isolated(DataSource database) {
            return database;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return JdbcFencedStore.builder(isolated(Databases.forStores(server()))).policy(policy).build();
        }

        /**
         * Stores whose connections pass through a proxy; the lost reply is the one to the store's
         * conditional {@code UPDATE} (writes, updates and deletes of an existing row), not to a
         * connection's handshake.
         */
        @Override
        protected LostReplies lostReplies() {
            DataSource database = Databases.migrated(server());
            ReplyDroppingProxy proxy = Databases.proxyTo(database);
            DataSource viaProxy = isolated(Databases.through(proxy, database));
            return LostReplies.through(proxy, "UPDATE " + JdbcFencedStore.DEFAULT_TABLE + " SET", false,
                    policy -> JdbcFencedStore.builder(viaProxy).policy(policy).build());
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
        DataSource isolated(DataSource database) {
            return new IsolatedDataSource(database, Connection.TRANSACTION_REPEATABLE_READ);
        }
    }

    @Nested
    class MariaDbReadCommitted extends OnDatabase {
        @Override
        SqlTestServer server() {
            return Databases.mariaDb();
        }

        @Override
        DataSource isolated(DataSource database) {
            return new IsolatedDataSource(database, Connection.TRANSACTION_READ_COMMITTED);
        }
    }
}
