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
 * ATTACK (adversarial review, branch attack-stores, minor): a re-read inside REPEATABLE READ sees
 * the past. On MariaDB (REPEATABLE READ is its default) FencedTable.highWaterMark reads the row and
 * its entry with plain SELECTs, so inside the caller's transaction it answers from the snapshot: right
 * after update() refused the caller with "mark 10" (a locking read), highWaterMark() in the same
 * transaction says 5 — the mark the caller is shown goes backwards, and a caller that checks the mark
 * before writing is told its stale token 7 is fine.
 */
class AttackSnapshotMarkIT {

    @Test
    void insideRepeatableReadTheMarkReadAfterARefusalIsOlderThanTheRefusalsMark() throws SQLException {
        DataSource db = Databases.migrated(Databases.mariaDb(), Connection.TRANSACTION_REPEATABLE_READ);
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        String resource = "account-" + id;
        FencedTable accounts = FencedTable.of("accounts", "id");
        FencedTable newerClient = FencedTable.of("accounts", "id");
        try (Connection setup = db.getConnection()) {
            accounts.upsert(setup, FencingToken.of(resource, 5), Map.of("id", id), Map.of("balance", 0));
        }
        try (Connection zombie = db.getConnection(); Connection newer = db.getConnection()) {
            zombie.setAutoCommit(false);
            assertThat(accounts.highWaterMark(zombie, Map.of("id", id))).hasValue(5); // snapshot taken here
            newerClient.update(newer, FencingToken.of(resource, 10), Map.of("id", id), Map.of("balance", 100));

            assertThatThrownBy(() -> accounts.update(zombie, FencingToken.of(resource, 7), Map.of("id", id),
                    Map.of("balance", 70))).isInstanceOf(StaleTokenException.class)
                    .extracting(e -> ((StaleTokenException) e).highWaterMark()).isEqualTo(10L);
            assertThat(accounts.highWaterMark(zombie, Map.of("id", id)))
                    .as("the mark read in the transaction that was just refused with mark 10").hasValue(10);
            zombie.rollback();
        }
    }
}
