package dev.fencing.migrations;

import java.util.List;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * A Java migration for your own Flyway run that adds a token column —
 * {@code fencing_token BIGINT NOT NULL DEFAULT 0} unless you name another — to the tables you
 * list. Idempotent: a table that already has the column is left alone, so the migration can be
 * re-run, or repeated for more tables later. Existing rows get token 0, below every real token.
 *
 * <p>Subclass it with a Flyway migration name in your migrations package:
 *
 * <pre>{@code
 * package db.migration;
 *
 * public class V7__fence_accounts_and_orders extends AddFencingTokenColumns {
 *     public V7__fence_accounts_and_orders() {
 *         super(List.of("accounts", "billing.orders"));          // fencing_token
 *     }
 * }
 *
 * public class V8__fence_invoices extends AddFencingTokenColumns {
 *     public V8__fence_invoices() {
 *         super(List.of("invoices"), "lock_token");              // a column name of your choice
 *     }
 * }
 * }</pre>
 *
 * <p>Table names are plain or schema-qualified SQL identifiers (letters, digits, underscores;
 * not quoted); anything else is refused with {@link IllegalArgumentException} before any SQL runs.
 */
public abstract class AddFencingTokenColumns extends BaseJavaMigration {

    /** The default token column. */
    public static final String DEFAULT_COLUMN = "fencing_token";

    private final List<String> tables;
    private final String column;

    /** Adds {@value #DEFAULT_COLUMN} to {@code tables}. */
    protected AddFencingTokenColumns(List<String> tables) {
        this(tables, DEFAULT_COLUMN);
    }

    /** Adds {@code column} to {@code tables}. */
    protected AddFencingTokenColumns(List<String> tables, String column) {
        if (tables == null || tables.isEmpty()) {
            throw new IllegalArgumentException("list at least one table to add the token column to");
        }
        tables.forEach(table -> Identifiers.requireTable(table));
        this.tables = List.copyOf(tables);
        this.column = Identifiers.requireColumn(column);
    }

    @Override
    public void migrate(Context context) throws Exception {
        for (String table : tables) {
            TokenColumns.add(context.getConnection(), table, column);
        }
    }
}
