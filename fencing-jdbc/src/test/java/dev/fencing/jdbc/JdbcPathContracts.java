package dev.fencing.jdbc;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.StorageBasedFencedStore;

/**
 * What {@link RowGuardContractIT}, {@link FenceRowContractIT} and {@link CrossPathContractIT} share:
 * the FencedStoreContract through the two native JDBC paths — the row guard ({@link RowGuard} on a
 * table with a token column) and the fence row ({@link JdbcFence} around plain DAO statements) —
 * and through both at once on one table ({@link CrossPathAccessor}), on PostgreSQL and MariaDB,
 * each at its default isolation (PostgreSQL READ COMMITTED, MariaDB REPEATABLE READ) and at the
 * other one. Three classes, so that the module's test classes can run side by side.
 */
final class JdbcPathContracts {

    static final String ROW_GUARD = "the row guard compares a token with the row's own token column and"
            + " guard entry, which hold no lock name (docs/guarantees.md, guarantee 9: what is not checked)";
    static final String CROSS_PATH = "both paths, with one lock per key named like the row's fence entry;"
            + " the row guard keeps no lock name";
    static final String FENCE_ROW = "a fence row is the lock's own row, keyed by the lock's name: a token"
            + " of another lock advances another row";
    static final String IN_THE_CALLERS_CONNECTION = "the row guard and the fence row run in the caller's own"
            + " connection and transaction and throw the driver's SQLException, so a lost reply (to a statement or to"
            + " the COMMIT) is the caller's, as for any statement of its transaction; JdbcFencedStoreIT runs the"
            + " lost-reply cases for the store that hides its connections";

    private JdbcPathContracts() {}

    static FencedStore store(StorageAccessor<?> accessor, Policy policy) {
        return new StorageBasedFencedStore(accessor, policy, FencingListener.NONE, 100);
    }
}
