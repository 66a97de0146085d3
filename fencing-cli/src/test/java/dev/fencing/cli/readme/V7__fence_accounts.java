package dev.fencing.cli.readme;

import dev.fencing.migrations.AddFencingTokenColumns;
import java.util.List;

/** docs/sql.md's token-column migration, verbatim (checked by {@link DocsSnippetsTest}). */
public class V7__fence_accounts extends AddFencingTokenColumns {      // in your db.migration package
    public V7__fence_accounts() {
        super(List.of("accounts", "billing.orders"));        // adds fencing_token BIGINT NOT NULL DEFAULT 0
    }
}
