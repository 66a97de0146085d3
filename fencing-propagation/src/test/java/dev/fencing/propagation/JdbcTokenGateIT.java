package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The gate over a JDBC fence, on the testkit's PostgreSQL, with two fences as two service instances. */
class JdbcTokenGateIT {

    private static final DataSource DATABASE = migrated();

    private static DataSource migrated() {
        DataSource db = TestServers.postgres().freshDatabase();
        FencingMigrations.migrate(db);
        return db;
    }

    @Test
    void twoServiceInstancesShareTheMarkInTheDatabase() {
        TokenGate one = JdbcTokenGate.over(JdbcFence.create(DATABASE));
        TokenGate other = JdbcTokenGate.over(JdbcFence.create(DATABASE));
        one.admit(FencingToken.of("orders/7", 5));
        other.admit(FencingToken.of("orders/7", 5)); // equal: the same holder's next call (MONOTONIC)

        assertThatThrownBy(() -> other.admit(FencingToken.of("orders/7", 4)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(5));
        one.admit(FencingToken.of("Orders/7", 1)); // another lock: its own mark
        one.admit(FencingToken.of("orders/7 ", 1));
    }

    @Test
    void theGatesMarkIsTheMarkTheServicesOwnTransactionsAreFencedBy() throws Exception {
        JdbcFence fence = JdbcFence.create(DATABASE);
        TokenGate gate = JdbcTokenGate.over(fence);
        gate.admit(FencingToken.of("invoice-9", 12));
        assertThatThrownBy(() -> fence.inTransaction(FencingToken.of("invoice-9", 11), connection -> null))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> JdbcTokenGate.over(null)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A service whose handlers write through a STRICT fence, behind a gate over the same fence:
     * the gate must not spend the token's one strict pass, or no admitted request could write.
     * Two service instances, one database.
     */
    @Test
    void aGateOverAStrictFenceLeavesTheTokensPassToTheHandlersWrite() throws Exception {
        JdbcFence fenceOne = JdbcFence.builder(DATABASE).policy(Policy.STRICT).build();
        JdbcFence fenceTwo = JdbcFence.builder(DATABASE).policy(Policy.STRICT).build();
        TokenGate gateOne = JdbcTokenGate.over(fenceOne);
        TokenGate gateTwo = JdbcTokenGate.over(fenceTwo);

        gateOne.admit(FencingToken.of("strict-ledger", 5));
        String written = fenceOne.inTransaction(FencingToken.of("strict-ledger", 5), connection -> "written");
        assertThat(written)
                .as("the admitted request's own STRICT write").isEqualTo("written");
        gateTwo.admit(FencingToken.of("strict-ledger", 5)); // the same holder's next request, at the other instance
        assertThatThrownBy(() -> fenceTwo.inTransaction(FencingToken.of("strict-ledger", 5), connection -> "again"))
                .as("its repeated write is refused by the handler's STRICT fence").isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> gateTwo.admit(FencingToken.of("strict-ledger", 4)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(5));
        gateOne.admit(FencingToken.of("strict-ledger", 6));
        String newer = fenceTwo.inTransaction(FencingToken.of("strict-ledger", 6), connection -> "newer");
        assertThat(newer).isEqualTo("newer");
    }
}
