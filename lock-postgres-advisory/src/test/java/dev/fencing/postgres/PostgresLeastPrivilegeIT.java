package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What the roles of docs/security.md cannot do, and how TLS fails: every refusal here is one the
 * guide's threat table relies on. Clients of three roles on one server.
 */
class PostgresLeastPrivilegeIT {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredPostgres::secrets);

    private final PostgresTestServer postgres = SecuredPostgres.server();

    @Test
    void theLockRoleReachesOnlyTheTokenCounter() throws SQLException {
        DataSource locks = SecuredPostgres.as(SecuredPostgres.LOCKS, SecuredPostgres.LOCKS_PASSWORD);
        String resource = "lp-" + UUID.randomUUID();
        try (PostgresAdvisoryLockProvider provider = PostgresAdvisoryLockProvider.create(locks);
                Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(lease.token().value()).isPositive();
        }
        assertRefused(locks, "SELECT * FROM fencing_store");
        assertRefused(locks, "UPDATE fencing_fence SET token = 0");
        assertRefused(locks, "DELETE FROM fencing_token_counter");
        assertRefused(locks, "TRUNCATE fencing_token_counter");
        assertRefused(locks, "DROP TABLE fencing_token_counter");
        assertRefused(locks, "CREATE TABLE fencing_token_counter_2 (resource TEXT)");
        assertRefused(locks, "UPDATE fencing_schema_history SET success = false");
    }

    @Test
    void theStoreRoleCannotTouchTheTokenCounter() {
        DataSource store = SecuredPostgres.as(SecuredPostgres.STORE, SecuredPostgres.STORE_PASSWORD);
        assertRefused(store, "UPDATE fencing_token_counter SET token = 1");
        assertRefused(store, "INSERT INTO fencing_token_counter (resource, token) VALUES ('x', 1)");
        assertRefused(store, "DELETE FROM fencing_store");
        assertRefused(store, "DROP TABLE fencing_store");
    }

    @Test
    void aPlaintextLoginIsRefusedByTheServer() {
        PGSimpleDataSource plaintext = SecuredPostgres.as(SecuredPostgres.LOCKS, SecuredPostgres.LOCKS_PASSWORD);
        plaintext.setSslMode("disable");
        assertThatThrownBy(() -> PostgresAdvisoryLockProvider.create(plaintext))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("no encryption")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredPostgres.LOCKS_PASSWORD));
    }

    @Test
    void aServerCertificateFromAnotherAuthorityFailsTheConnection() {
        TestCertificates stranger = TestCertificates.create();
        PGSimpleDataSource trustingTheStranger = SecuredPostgres.as(SecuredPostgres.LOCKS, SecuredPostgres.LOCKS_PASSWORD);
        trustingTheStranger.setSslRootCert(stranger.caCertificate().toString());
        assertThatThrownBy(() -> PostgresAdvisoryLockProvider.create(trustingTheStranger))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("SSL error")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).containsIgnoringCase("PKIX path")
                        .doesNotContain(SecuredPostgres.LOCKS_PASSWORD));
    }

    @Test
    void aWrongPasswordFailsWithoutNamingIt() {
        String wrong = "wrong-" + UUID.randomUUID();
        DataSource locks = SecuredPostgres.as(SecuredPostgres.LOCKS, wrong);
        assertThatThrownBy(() -> PostgresAdvisoryLockProvider.create(locks))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("password authentication failed")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(wrong));
    }

    private static void assertRefused(DataSource database, String sql) {
        assertThatThrownBy(() -> {
            try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }).as(sql).isInstanceOf(SQLException.class).hasMessageMatching("(?s).*(permission denied|must be owner).*");
    }
}
