package dev.fencing.postgres;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderTransportContract;
import dev.fencing.testkit.SecretScan;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider's round trips ({@link LockProviderTransportContract}; the whole contract runs in
 * plain text) as docs/security.md sets it up: {@code sslmode=verify-full}, a SCRAM
 * password, and a role with {@code SELECT, INSERT, UPDATE} on {@code fencing_token_counter} only.
 */
class PostgresTlsLockProviderIT extends LockProviderTransportContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredPostgres::secrets);

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return PostgresAdvisoryLockProvider.builder(SecuredPostgres.pool(SecuredPostgres.LOCKS,
                SecuredPostgres.LOCKS_PASSWORD)).listener(listener).build();
    }

    /** A provider on the TLS port of a server that is stopped once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        var own = SecuredPostgres.launch();
        LockProvider provider = PostgresAdvisoryLockProvider.create(SecuredPostgres.as(own, SecuredPostgres.LOCKS,
                SecuredPostgres.LOCKS_PASSWORD));
        own.stop();
        return provider;
    }
}
