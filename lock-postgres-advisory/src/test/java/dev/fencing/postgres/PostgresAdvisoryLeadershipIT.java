package dev.fencing.postgres;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;

/** Leader election on the advisory-lock provider, each candidate a provider of its own on the shared pool. */
class PostgresAdvisoryLeadershipIT extends LeadershipContract {

    @Override
    protected LockProvider createProvider() {
        return PostgresAdvisoryLockProvider.builder(PostgresAdvisoryLockProviderIT.pool()).build();
    }
}
