package dev.fencing.jdbc;

import static dev.fencing.jdbc.JdbcPathContracts.store;
import static java.sql.Connection.TRANSACTION_READ_COMMITTED;
import static java.sql.Connection.TRANSACTION_REPEATABLE_READ;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import org.junit.jupiter.api.Nested;

/**
 * The FencedStoreContract through the fence row ({@link JdbcFence} around plain DAO statements), on
 * PostgreSQL and MariaDB at both isolation levels ({@link JdbcPathContracts}).
 */
class FenceRowContractIT {

    @Nested
    class FenceRowOnPostgres extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.FENCE_ROW;
        }

        @Override
        protected String whyNoLostReplies() {
            return JdbcPathContracts.IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new FenceRowAccessor(Databases.forStores(Databases.postgres()), policy), policy);
        }
    }

    @Nested
    class FenceRowOnMariaDb extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.FENCE_ROW;
        }

        @Override
        protected String whyNoLostReplies() {
            return JdbcPathContracts.IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new FenceRowAccessor(Databases.forStores(Databases.mariaDb()), policy), policy);
        }
    }

    @Nested
    class FenceRowOnPostgresRepeatableRead extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.FENCE_ROW;
        }

        @Override
        protected String whyNoLostReplies() {
            return JdbcPathContracts.IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new FenceRowAccessor(Databases.forStores(Databases.postgres(), TRANSACTION_REPEATABLE_READ), policy), policy);
        }
    }

    @Nested
    class FenceRowOnMariaDbReadCommitted extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.FENCE_ROW;
        }

        @Override
        protected String whyNoLostReplies() {
            return JdbcPathContracts.IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new FenceRowAccessor(Databases.forStores(Databases.mariaDb(), TRANSACTION_READ_COMMITTED), policy), policy);
        }
    }
}
