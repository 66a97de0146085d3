package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fence row (JdbcFence wrapping DAO code that has no idea about tokens) and the row guard
 * (RowGuard) on the same rows share one mark per lock: every row guard write also raises, and is
 * refused by, the fence row of its token's lock in the same fence table, inside its transaction. So a
 * zombie with an older token is refused through either path after a newer holder wrote through the
 * other. (Found by the adversarial review: before, neither path saw the other's mark, and token 7
 * overwrote token 10's write in both directions; these tests failed.)
 */
class RowGuardAndFenceRowShareMarksIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    /** No older token accepted after a newer one: newer via the fence row, zombie via the row guard. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aZombieThroughTheRowGuardIsRefusedAfterANewerHoldersFenceRowWrite(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        String resource = "account-" + id;
        RowGuard accounts = RowGuard.create("accounts", "id");
        try (Connection setup = db.getConnection()) {
            accounts.upsert(setup, FencingToken.of(resource, 5), Map.of("id", id), Map.of("balance", 0));
        }
        JdbcFence.create(db).inTransaction(FencingToken.of(resource, 10), connection -> {
            try (PreparedStatement dao = connection.prepareStatement("UPDATE accounts SET balance = ? WHERE id = ?")) {
                dao.setLong(1, 100);
                dao.setLong(2, id);
                return dao.executeUpdate();
            }
        });
        Throwable refused = null;
        try (Connection zombie = db.getConnection()) {
            accounts.update(zombie, FencingToken.of(resource, 7), Map.of("id", id), Map.of("balance", 70));
        } catch (StaleTokenException e) {
            refused = e;
        }
        assertThat(balance(db, id)).as("token 10 wrote 100 through the fence row; token 7 came after").isEqualTo(100);
        assertThat(refused).isInstanceOf(StaleTokenException.class);
        assertThat(((StaleTokenException) refused).highWaterMark()).isEqualTo(10);
    }

    /** No older token accepted after a newer one: newer via the row guard, zombie via the fence row. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aZombieThroughTheFenceRowIsRefusedAfterANewerHoldersRowGuardWrite(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        String resource = "account-" + id;
        RowGuard accounts = RowGuard.create("accounts", "id");
        JdbcFence fence = JdbcFence.create(db);
        // the zombie (token 7) has passed the fence once already, as a holder would
        fence.inTransaction(FencingToken.of(resource, 7), connection -> 0);
        try (Connection newer = db.getConnection()) {
            accounts.upsert(newer, FencingToken.of(resource, 10), Map.of("id", id), Map.of("balance", 100));
        }
        Throwable refused = null;
        try {
            fence.inTransaction(FencingToken.of(resource, 7), connection -> {
                try (PreparedStatement dao = connection.prepareStatement("UPDATE accounts SET balance = ? WHERE id = ?")) {
                    dao.setLong(1, 70);
                    dao.setLong(2, id);
                    return dao.executeUpdate();
                }
            });
        } catch (StaleTokenException e) {
            refused = e;
        }
        assertThat(balance(db, id)).as("token 10 wrote 100 through the row guard; token 7 came after").isEqualTo(100);
        assertThat(refused).isInstanceOf(StaleTokenException.class);
    }

    private static long balance(DataSource db, long id) throws SQLException {
        try (Connection connection = db.getConnection();
                PreparedStatement query = connection.prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
            query.setLong(1, id);
            try (ResultSet result = query.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }
}
