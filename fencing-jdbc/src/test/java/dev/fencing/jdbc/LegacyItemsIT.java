package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows of {@code fencing_store} written before the store kept the lock's name (its
 * {@code fence_resource} is NULL): the next fenced write binds the row to its token's lock, and
 * from then on a token of another lock is refused. The mark is honoured throughout.
 */
class LegacyItemsIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aRowWithoutALockNameIsBoundByItsNextWrite(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        String key = "legacy-" + UUID.randomUUID();
        try (Connection connection = db.getConnection(); PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO fencing_store (item_key, item_value, token, version) VALUES (?, 'old', 7, 1)")) {
            insert.setString(1, key);
            insert.executeUpdate();
        }
        FencedStore store = JdbcFencedStore.create(db);
        FencedStore other = JdbcFencedStore.create(db);

        assertThatThrownBy(() -> store.write(FencingToken.of("orders", 6), key, "stale"))
                .isInstanceOf(StaleTokenException.class);
        store.write(FencingToken.of("orders", 8), key, "bound");
        assertThatThrownBy(() -> other.write(FencingToken.of("payments", 9), key, "foreign"))
                .isInstanceOfSatisfying(ForeignTokenException.class,
                        e -> assertThat(e.boundResource()).isEqualTo("orders"));
        assertThat(other.read(key)).contains(new StoredValue(key, "bound", 8));
    }
}
