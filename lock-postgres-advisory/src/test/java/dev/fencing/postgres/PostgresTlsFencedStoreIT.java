package dev.fencing.postgres;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.SecretScan;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link JdbcFencedStore}'s contract over {@code sslmode=verify-full} with a role holding
 * {@code SELECT, INSERT, UPDATE} on {@code fencing_store} and {@code fencing_fence} only.
 */
class PostgresTlsFencedStoreIT extends FencedStoreContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredPostgres::secrets);

    @Override
    protected FencedStore createStore(Policy policy) {
        return JdbcFencedStore.builder(SecuredPostgres.pool(SecuredPostgres.STORE,
                SecuredPostgres.STORE_PASSWORD)).policy(policy).build();
    }

    @Override
    protected String whyNoLostReplies() {
        return "the lost-reply cases run in fencing-jdbc's JdbcLostReplyIT through a plaintext proxy that reads the"
                + " protocol; it cannot read it inside TLS";
    }
}
