package dev.fencing.jdbc;

import static java.sql.Connection.TRANSACTION_READ_COMMITTED;
import static java.sql.Connection.TRANSACTION_REPEATABLE_READ;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.core.spi.StorageBasedFencedStore;
import dev.fencing.testkit.FencedStoreContract;
import org.junit.jupiter.api.Nested;

/**
 * The FencedStoreContract through the two native JDBC paths — the row guard ({@link RowGuard}
 * on a table with a token column) and the fence row ({@link JdbcFence} around plain DAO
 * statements) — and through both at once on one table ({@link CrossPathAccessor}: even tokens
 * through the row guard, odd ones through the fence row), on PostgreSQL and MariaDB, each at its
 * default isolation (PostgreSQL READ COMMITTED, MariaDB REPEATABLE READ) and at the other one. The
 * row guard and cross-path stores guard each key with a lock named exactly like the row's fence
 * entry, so every contract case also checks that a lock's fence row and a row's entry stay apart.
 */
class RowGuardAndFenceRowContractIT {

    private static final String ROW_GUARD = "the row guard compares a token with the row's own token column and"
            + " guard entry, which hold no lock name (docs/guarantees.md, guarantee 9: what is not checked)";
    private static final String CROSS_PATH = "both paths, with one lock per key named like the row's fence entry;"
            + " the row guard keeps no lock name";
    private static final String FENCE_ROW = "a fence row is the lock's own row, keyed by the lock's name: a token"
            + " of another lock advances another row";
    private static final String IN_THE_CALLERS_CONNECTION = "the row guard and the fence row run in the caller's own"
            + " connection and transaction and throw the driver's SQLException, so a lost reply (to a statement or to"
            + " the COMMIT) is the caller's, as for any statement of its transaction; JdbcFencedStoreIT runs the"
            + " lost-reply cases for the store that hides its connections";

    @Nested
    class RowGuardOnPostgres extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return ROW_GUARD;
        }

        @Override
        protected String whyNoLostReplies() {
            return IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new RowGuardAccessor(Databases.migrated(Databases.postgres()), policy), policy);
        }
    }

    @Nested
    class RowGuardOnMariaDb extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return ROW_GUARD;
        }

        @Override
        protected String whyNoLostReplies() {
            return IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new RowGuardAccessor(Databases.migrated(Databases.mariaDb()), policy), policy);
        }
    }

    @Nested
    class FenceRowOnPostgres extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return FENCE_ROW;
        }

        @Override
        protected String whyNoLostReplies() {
            return IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new FenceRowAccessor(Databases.migrated(Databases.postgres()), policy), policy);
        }
    }

    @Nested
    class FenceRowOnMariaDb extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return FENCE_ROW;
        }

        @Override
        protected String whyNoLostReplies() {
            return IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new FenceRowAccessor(Databases.migrated(Databases.mariaDb()), policy), policy);
        }
    }

    @Nested
    class RowGuardOnPostgresRepeatableRead extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return ROW_GUARD;
        }

        @Override
        protected String whyNoLostReplies() {
            return IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new RowGuardAccessor(Databases.migrated(Databases.postgres(), TRANSACTION_REPEATABLE_READ), policy), policy);
        }
    }

    @Nested
    class RowGuardOnMariaDbReadCommitted extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return ROW_GUARD;
        }

        @Override
        protected String whyNoLostReplies() {
            return IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new RowGuardAccessor(Databases.migrated(Databases.mariaDb(), TRANSACTION_READ_COMMITTED), policy), policy);
        }
    }

    @Nested
    class FenceRowOnPostgresRepeatableRead extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return FENCE_ROW;
        }

        @Override
        protected String whyNoLostReplies() {
            return IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new FenceRowAccessor(Databases.migrated(Databases.postgres(), TRANSACTION_REPEATABLE_READ), policy), policy);
        }
    }

    @Nested
    class FenceRowOnMariaDbReadCommitted extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return FENCE_ROW;
        }

        @Override
        protected String whyNoLostReplies() {
            return IN_THE_CALLERS_CONNECTION;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new FenceRowAccessor(Databases.migrated(Databases.mariaDb(), TRANSACTION_READ_COMMITTED), policy), policy);
        }
    }

    @Nested
    class CrossPathOnPostgres extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return CROSS_PATH;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new CrossPathAccessor(Databases.migrated(Databases.postgres()), policy), policy);
        }
    }

    @Nested
    class CrossPathOnMariaDb extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return CROSS_PATH;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new CrossPathAccessor(Databases.migrated(Databases.mariaDb()), policy), policy);
        }
    }

    @Nested
    class CrossPathOnPostgresRepeatableRead extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return CROSS_PATH;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new CrossPathAccessor(Databases.migrated(Databases.postgres(), TRANSACTION_REPEATABLE_READ), policy), policy);
        }
    }

    @Nested
    class CrossPathOnMariaDbReadCommitted extends FencedStoreContract {

        @Override
        protected String whyKeysAreNotBoundToLocks() {
            return CROSS_PATH;
        }

        @Override
        protected FencedStore createStore(Policy policy) {
            return store(new CrossPathAccessor(Databases.migrated(Databases.mariaDb(), TRANSACTION_READ_COMMITTED), policy), policy);
        }
    }

    static FencedStore store(dev.fencing.core.spi.StorageAccessor<?> accessor, Policy policy) {
        return new StorageBasedFencedStore(accessor, policy, FencingListener.NONE, 100);
    }

}
