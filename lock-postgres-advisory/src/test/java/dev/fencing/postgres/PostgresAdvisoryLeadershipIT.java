package dev.fencing.postgres;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.UnclearReplies;
import java.util.Optional;

/** Leader election on the advisory-lock provider, each candidate a provider of its own on the shared pool. */
class PostgresAdvisoryLeadershipIT extends LeadershipContract {

    @Override
    protected LockProvider createProvider() {
        return PostgresAdvisoryLockProvider.builder(PostgresAdvisoryLockProviderIT.pool()).build();
    }

    /** The client of {@link PostgresAdvisoryLockProviderIT}'s unclear-replies test: a pool behind a proxy that holds replies. */
    @Override
    protected Optional<UnclearReplies> silencedClient() {
        return new PostgresAdvisoryLockProviderIT().unclearReplies();
    }
}
