package dev.fencing.jdbc;

import static dev.fencing.jdbc.JdbcPathContracts.store;
import static java.sql.Connection.TRANSACTION_READ_COMMITTED;
import static java.sql.Connection.TRANSACTION_REPEATABLE_READ;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import org.junit.jupiter.api.Nested;

/**
 * The FencedStoreContract through both JDBC paths at once on one table ({@link CrossPathAccessor}:
 * even tokens through the row guard, odd ones through the fence row), on PostgreSQL and MariaDB at
 * both isolation levels ({@link JdbcPathContracts}), one lock per key named like the row's fence entry.
 */
class CrossPathContractIT {

    @Nested
    class CrossPathOnPostgres extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.CROSS_PATH;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new CrossPathAccessor(Databases.forStores(Databases.postgres()), policy), policy);
        }
    }

    @Nested
    class CrossPathOnMariaDb extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.CROSS_PATH;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new CrossPathAccessor(Databases.forStores(Databases.mariaDb()), policy), policy);
        }
    }

    @Nested
    class CrossPathOnPostgresRepeatableRead extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.CROSS_PATH;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new CrossPathAccessor(Databases.forStores(Databases.postgres(), TRANSACTION_REPEATABLE_READ), policy), policy);
        }
    }

    @Nested
    class CrossPathOnMariaDbReadCommitted extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.CROSS_PATH;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new CrossPathAccessor(Databases.forStores(Databases.mariaDb(), TRANSACTION_READ_COMMITTED), policy), policy);
        }
    }
}
