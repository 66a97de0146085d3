package db.app;

import dev.fencing.migrations.AddFencingTokenColumns;
import java.util.List;

/** The application's own migration adding the token column, as docs/sql.md shows. */
public class V2__fence_accounts extends AddFencingTokenColumns {
    public V2__fence_accounts() {
        super(List.of("accounts"));
    }
}
