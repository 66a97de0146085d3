package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.SecretScan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversarial check of docs/security.md's threat row "UPDATE on fencing_token_counter": the
 * provider runs as the documented lock role over TLS; a second session with that role's
 * {@code UPDATE} on the counter plays the thief.
 */
class PostgresSecurityAttackIT {

    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredPostgres::secrets);

    /**
     * Why docs/security.md puts {@code UPDATE} on the counter at risk: the thief makes tokens run
     * ahead (a counter a day ahead of the database clock, no error), lets a grant take that token,
     * then sets the counter back to it minus one: the next grant takes the same token again. The
     * clock floor does not help. Pinned as it is, so a change fails here and the table moves with it.
     */
    @Test
    void aCounterThiefMakesATokenRepeat() throws SQLException {
        SecuredPostgres.server();
        String resource = "attack-" + UUID.randomUUID();
        try (LockProvider provider = PostgresAdvisoryLockProvider.builder(SecuredPostgres.pool(SecuredPostgres.LOCKS,
                SecuredPostgres.LOCKS_PASSWORD)).build();
                Connection thief = SecuredPostgres.as(SecuredPostgres.LOCKS, SecuredPostgres.LOCKS_PASSWORD)
                .getConnection()) {
            try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                assertThat(lease.token().value()).isPositive(); // the counter's row now exists
            }
            setCounter(thief, resource, System.currentTimeMillis() * 1000 + 86_400_000_000L);
            long ahead;
            try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                ahead = lease.token().value();
            }
            setCounter(thief, resource, ahead - 1);
            try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                assertThat(lease.token().value()).as("the thief made the next grant repeat the token")
                        .isEqualTo(ahead);
            }
        }
    }

    private static void setCounter(Connection thief, String resource, long token) throws SQLException {
        try (PreparedStatement update = thief.prepareStatement(
                "UPDATE fencing_token_counter SET token = ? WHERE resource = ?")) {
            update.setLong(1, token);
            update.setString(2, resource);
            assertThat(update.executeUpdate()).isOne();
        }
    }
}
