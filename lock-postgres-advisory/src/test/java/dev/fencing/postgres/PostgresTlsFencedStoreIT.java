package dev.fencing.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.SecretScan;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link JdbcFencedStore}'s contract over {@code sslmode=verify-full} with a role holding
 * {@code SELECT, INSERT, UPDATE} on {@code fencing_store} and {@code fencing_fence} only.
 */
class PostgresTlsFencedStoreIT extends FencedStoreContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredPostgres::secrets);

    private static HikariDataSource pool;

    /** A pool, as an application has: a TLS handshake and a SCRAM exchange per connection are slow. */
    static synchronized HikariDataSource pool() {
        if (pool == null) {
            HikariConfig config = new HikariConfig();
            config.setDataSource(SecuredPostgres.as(SecuredPostgres.STORE, SecuredPostgres.STORE_PASSWORD));
            config.setMaximumPoolSize(20);
            config.setPoolName("store-tls-it");
            pool = new HikariDataSource(config);
        }
        return pool;
    }

    @AfterAll
    static void closePool() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        return JdbcFencedStore.builder(pool()).policy(policy).build();
    }

    @Override
    protected String whyNoLostReplies() {
        return "the lost-reply cases run in fencing-jdbc's JdbcLostReplyIT through a plaintext proxy that reads the"
                + " protocol; it cannot read it inside TLS";
    }
}
