package dev.fencing.jdbc;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.RefusalReportsContract;

/** One WARN and one listener event per refusal through {@link JdbcFencedStore}, on PostgreSQL. */
class JdbcRefusalReportsIT extends RefusalReportsContract {

    @Override
    protected FencedStore createStore(FencingListener listener) {
        return JdbcFencedStore.builder(Databases.migrated(Databases.postgres())).listener(listener).build();
    }
}
