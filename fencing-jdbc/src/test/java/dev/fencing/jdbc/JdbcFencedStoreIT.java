package dev.fencing.jdbc;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.servers.SqlTestServer;
import org.junit.jupiter.api.Nested;

/** {@link JdbcFencedStore} on the migrations' {@code fencing_store} table, on both databases. */
class JdbcFencedStoreIT {

    abstract static class OnDatabase extends FencedStoreContract {
        abstract SqlTestServer server();

        @Override
        protected FencedStore createStore(Policy policy) {
            return JdbcFencedStore.create(Databases.migrated(server()), JdbcFencedStore.DEFAULT_TABLE, policy,
                    FencingListener.NONE);
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
}
