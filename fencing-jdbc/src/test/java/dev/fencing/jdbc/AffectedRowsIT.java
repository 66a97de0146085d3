package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoredValue;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A MySQL/MariaDB connection with {@code useAffectedRows=true} counts changed
 * rows, so re-writing identical values counted 0 and read as "no such row". MariaDB only: the
 * option does not exist for PostgreSQL.
 */
class AffectedRowsIT {

    private static final RowGuard ACCOUNTS = RowGuard.create("accounts", "id");

    private static FencingToken token(long value) {
        return FencingToken.of("affected-rows", value);
    }

    @Test
    void theRowGuardRefusesAConnectionThatCountsChangedRows() throws SQLException {
        DataSource changedRows = Databases.mariaDbWith("useAffectedRows=true");
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        try (Connection connection = changedRows.getConnection()) {
            ACCOUNTS.insert(connection, token(5), Map.of("id", id), Map.of("balance", 100));
            assertThatThrownBy(() -> ACCOUNTS.update(connection, token(5), Map.of("id", id), Map.of("balance", 100)))
                    .as("an identical re-write used to return false, 'no such row'")
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("counts changed rows instead of matched rows (useAffectedRows=true)")
                    .hasMessageContaining("Remove useAffectedRows");
        }
        try (Connection connection = Databases.migrated(Databases.mariaDb()).getConnection()) {
            assertThat(ACCOUNTS.update(connection, token(5), Map.of("id", id), Map.of("balance", 100)))
                    .as("the same re-write on a matched-rows connection").isTrue();
        }
    }

    @Test
    void theFenceRowRefusesItToo() throws SQLException {
        JdbcFence fence = JdbcFence.create(Databases.mariaDbWith("useAffectedRows=true"));
        String resource = "affected-" + UUID.randomUUID();
        int done = fence.inTransaction(FencingToken.of(resource, 5), connection -> 1);
        assertThat(done).isEqualTo(1);
        assertThatThrownBy(() -> fence.inTransaction(FencingToken.of(resource, 6), connection -> 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("useAffectedRows=true");
    }

    /** Every write of the key-value store changes its row (the version), so both counts agree there. */
    @Test
    void theKeyValueStoreWorksEitherWay() {
        FencedStore store = JdbcFencedStore.create(Databases.mariaDbWith("useAffectedRows=true"));
        String key = "affected-" + UUID.randomUUID();
        store.write(token(5), key, "same");
        store.write(token(5), key, "same");
        store.update(token(5), key, v -> "same");
        assertThat(store.read(key)).contains(new StoredValue(key, "same", 5));
    }
}
