package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A re-read inside REPEATABLE READ must not see the past: RowGuard.highWaterMark reads the row and
 * its entry with locking reads ({@code SELECT ... FOR UPDATE}), the newest committed rows, so inside
 * the caller's MariaDB transaction (REPEATABLE READ is its default) the mark it answers is never
 * older than the mark a refusal in the same transaction named. (Found by the adversarial review:
 * with plain SELECTs it answered 5 from the snapshot right after update() refused with mark 10, so a
 * caller checking the mark was told its stale token 7 was fine; this test failed.) Being a locking
 * read, it holds the row until the caller's transaction ends.
 */
class HighWaterMarkInRepeatableReadIT {

    @Test
    void insideRepeatableReadTheMarkReadAfterARefusalIsTheRefusalsMark() throws SQLException {
        DataSource db = Databases.migrated(Databases.mariaDb(), Connection.TRANSACTION_REPEATABLE_READ);
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        String resource = "account-" + id;
        RowGuard accounts = RowGuard.create("accounts", "id");
        RowGuard newerClient = RowGuard.create("accounts", "id");
        try (Connection setup = db.getConnection()) {
            accounts.upsert(setup, FencingToken.of(resource, 5), Map.of("id", id), Map.of("balance", 0));
        }
        try (Connection zombie = db.getConnection(); Connection newer = db.getConnection()) {
            zombie.setAutoCommit(false);
            assertThat(plainToken(zombie, id)).isEqualTo(5); // the snapshot is taken here (a plain read locks nothing)
            newerClient.update(newer, FencingToken.of(resource, 10), Map.of("id", id), Map.of("balance", 100));
            assertThat(plainToken(zombie, id)).as("the snapshot still shows").isEqualTo(5);

            assertThatThrownBy(() -> accounts.update(zombie, FencingToken.of(resource, 7), Map.of("id", id),
                    Map.of("balance", 70))).isInstanceOf(StaleTokenException.class)
                    .extracting(e -> ((StaleTokenException) e).highWaterMark()).isEqualTo(10L);
            assertThat(accounts.highWaterMark(zombie, Map.of("id", id)))
                    .as("the mark read in the transaction that was just refused with mark 10").hasValue(10);
            zombie.rollback();
        }
    }

    private static long plainToken(Connection connection, long id) throws SQLException {
        try (java.sql.PreparedStatement query = connection.prepareStatement(
                "SELECT fencing_token FROM accounts WHERE id = ?")) {
            query.setLong(1, id);
            try (java.sql.ResultSet result = query.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }
}
