package dev.fencing.postgres;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.FrozenLeaderContract;

import java.time.Duration;
import java.util.List;

/** A leader in a JVM of its own frozen past its TTL, on PostgreSQL advisory locks. */
class PostgresFrozenLeaderIT extends FrozenLeaderContract {

    @Override
    protected LockProvider createProvider() {
        return PostgresAdvisoryLockProvider.builder(PostgresAdvisoryLockProviderIT.pool()).build();
    }

    @Override
    protected Class<?> childMain() {
        return LeaderChildMain.class;
    }

    @Override
    protected List<String> childArguments(String lock, Duration ttl) {
        return List.of(PostgresAdvisoryLockProviderIT.databaseUrl(), lock, Long.toString(ttl.toMillis()));
    }
}
