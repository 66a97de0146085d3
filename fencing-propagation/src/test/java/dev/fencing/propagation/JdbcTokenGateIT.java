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
    void twoServiceInstancesShareTheMarkTheirWritesLeftInTheDatabase() throws Exception {
        JdbcFence fenceOne = JdbcFence.create(DATABASE);
        TokenGate one = JdbcTokenGate.over(fenceOne);
        TokenGate other = JdbcTokenGate.over(JdbcFence.create(DATABASE));
        one.admit(FencingToken.of("orders/7", 5));
        fenceOne.inTransaction(FencingToken.of("orders/7", 5), connection -> null); // the handler's write
        other.admit(FencingToken.of("orders/7", 5)); // equal: the same holder's next call

        assertThatThrownBy(() -> other.admit(FencingToken.of("orders/7", 4)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(5));
        one.admit(FencingToken.of("Orders/7", 1)); // another lock: its own mark
        one.admit(FencingToken.of("orders/7 ", 1));
    }

    /** A gate writes nothing: no row for a lock nobody wrote under (a typo'd caller's included). */
    @Test
    void aGateCreatesNoFenceRow() throws Exception {
        TokenGate gate = JdbcTokenGate.over(JdbcFence.create(DATABASE));
        gate.admit(FencingToken.of("never-written", 3));
        try (java.sql.Connection connection = DATABASE.getConnection();
                java.sql.PreparedStatement select = connection.prepareStatement(
                        "SELECT count(*) FROM fencing_fence WHERE resource = 'never-written'");
                java.sql.ResultSet rows = select.executeQuery()) {
            rows.next();
            assertThat(rows.getInt(1)).isZero();
        }
    }

    @Test
    void theGateChecksTheMarkTheServicesOwnTransactionsAreFencedBy() throws Exception {
        JdbcFence fence = JdbcFence.create(DATABASE);
        TokenGate gate = JdbcTokenGate.over(fence);
        fence.inTransaction(FencingToken.of("invoice-9", 12), connection -> null);
        assertThatThrownBy(() -> gate.admit(FencingToken.of("invoice-9", 11))).isInstanceOf(StaleTokenException.class);
        gate.admit(FencingToken.of("invoice-9", 12));
        assertThatThrownBy(() -> JdbcTokenGate.over(null)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The adversary's mix: the gate over a MONOTONIC fence (the default), the handlers' writes
     * through a STRICT fence over the same table. The gate must not spend the token's strict pass.
     */
    @Test
    void aMonotonicGateInFrontOfStrictWritesLeavesThePassToTheWrite() throws Exception {
        TokenGate gate = JdbcTokenGate.over(JdbcFence.create(DATABASE));
        JdbcFence strictWrites = JdbcFence.builder(DATABASE).policy(Policy.STRICT).build();
        gate.admit(FencingToken.of("mixed-ledger", 5));
        String written = strictWrites.inTransaction(FencingToken.of("mixed-ledger", 5), connection -> "written");
        assertThat(written).isEqualTo("written");
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
