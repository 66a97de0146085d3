package dev.fencing.jdbc;

import static dev.fencing.jdbc.JdbcPathContracts.store;
import static java.sql.Connection.TRANSACTION_READ_COMMITTED;
import static java.sql.Connection.TRANSACTION_REPEATABLE_READ;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import org.junit.jupiter.api.Nested;

/**
 * The FencedStoreContract through the row guard ({@link RowGuard} on a table with a token column), on
 * PostgreSQL and MariaDB at both isolation levels ({@link JdbcPathContracts}). Each key is guarded
 * with a lock named exactly like the row's fence entry, so every case also checks that a lock's
 * fence row and a row's entry stay apart.
 */
class RowGuardContractIT {

    @Nested
    class RowGuardOnPostgres extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.ROW_GUARD;
        }

        @Override
        protected String whyNoLostReplies() {
            return JdbcPathContracts.IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new RowGuardAccessor(Databases.forStores(Databases.postgres()), policy), policy);
        }
    }

    @Nested
    class RowGuardOnMariaDb extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.ROW_GUARD;
        }

        @Override
        protected String whyNoLostReplies() {
            return JdbcPathContracts.IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new RowGuardAccessor(Databases.forStores(Databases.mariaDb()), policy), policy);
        }
    }

    @Nested
    class RowGuardOnPostgresRepeatableRead extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.ROW_GUARD;
        }

        @Override
        protected String whyNoLostReplies() {
            return JdbcPathContracts.IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new RowGuardAccessor(Databases.forStores(Databases.postgres(), TRANSACTION_REPEATABLE_READ), policy), policy);
        }
    }

    @Nested
    class RowGuardOnMariaDbReadCommitted extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return JdbcPathContracts.ROW_GUARD;
        }

        @Override
        protected String whyNoLostReplies() {
            return JdbcPathContracts.IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new RowGuardAccessor(Databases.forStores(Databases.mariaDb(), TRANSACTION_READ_COMMITTED), policy), policy);
        }
    }
}
