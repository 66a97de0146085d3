package dev.fencing.jdbc;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.StoreBuilder;
import javax.sql.DataSource;

/**
 * The common {@link FencedStore} on a SQL key-value table — {@code fencing_store(item_key,
 * item_value, token, version, fence_resource)} from the migrations module — for PostgreSQL and
 * MySQL/MariaDB.
 *
 * <p>Every write is one conditional statement in auto-commit mode:
 * <ul>
 *   <li>write: {@code UPDATE ... SET item_value = ?, token = ?, fence_resource = ?, version = version + 1
 *       WHERE item_key = ? AND token <= ? AND (fence_resource IS NULL OR fence_resource = ?)}; if no
 *       row matched and none exists, {@code INSERT} (a unique-key violation means someone inserted
 *       first: try again). {@code fence_resource} compares byte for byte ("C" collation, VARBINARY),
 *       so a token of lock {@code 'Orders '} never passes for lock {@code 'orders'};
 *   <li>write-if-unchanged: the same {@code UPDATE} with {@code AND version = ?}, or an
 *       {@code INSERT} when the item was absent;
 *   <li>delete: a write of {@code item_value = NULL}, a tombstone that keeps the token.
 * </ul>
 * A refused write reads the row's token and resource to report the mark or the lock that fences the key. Only a unique-key violation of the
 * key (PostgreSQL 23505, MySQL/MariaDB 1062) whose row then reads as present counts as "inserted
 * first" (on MySQL/MariaDB read with {@code FOR UPDATE}: a plain read there may not see the row the
 * {@code INSERT} collided with yet). A connection lost during
 * a write (SQLState class 08: the statement may have been committed and its reply lost) is
 * {@link WriteOutcomeUnknownException} with the driver's error as the cause, never re-sent: the
 * row keeps no write id that could prove it landed. Every other error surfaces unchanged, as the
 * cause of an {@link UncheckedSqlException}. A statement refused with a
 * serialization failure (REPEATABLE READ on PostgreSQL, when the row changed while it waited) or a
 * deadlock (MariaDB, when writers of a new key waited on an {@code INSERT} of it that another unique
 * column of your table refused) is run again. Every write also bumps the version, so it always changes its row and a
 * changed-rows count ({@code useAffectedRows=true}) reads like a matched-rows one.
 *
 * <p>On first use the store checks that {@code item_key} and {@code fence_resource} compare byte
 * for byte, and refuses an install (or a table of your own) whose columns compare otherwise (MySQL's {@code utf8mb4_bin}: {@code 'a' = 'a '}) with
 * the migration to run. Thread-safe; each call borrows one connection from the data source.
 */
public final class JdbcFencedStore {

    /** The default table, created by the migrations module. */
    public static final String DEFAULT_TABLE = "fencing_store";

    private JdbcFencedStore() {}

    /** A store on {@value #DEFAULT_TABLE} under {@link Policy#MONOTONIC}, reporting to no listener. */
    public static FencedStore create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder for a store over {@code dataSource}: table {@value #DEFAULT_TABLE},
     * {@link Policy#MONOTONIC} and no listener unless set.
     *
     * @throws IllegalArgumentException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Checks.requireNonNull("dataSource", dataSource));
    }

    /** Configures a {@link JdbcFencedStore}; every setting but the data source is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        private final DataSource dataSource;
        private String table = DEFAULT_TABLE;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /**
         * The store's table, with the columns of {@value #DEFAULT_TABLE} (an unquoted SQL name,
         * optionally schema-qualified); default {@value #DEFAULT_TABLE}.
         */
        public Builder table(String table) {
            this.table = Sql.requireTable(table);
            return this;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The store. Touches no database: the table is checked on first use. */
        @Override
        public FencedStore build() {
            return storeOver(new JdbcStorageAccessor(dataSource, table));
        }
    }
}
