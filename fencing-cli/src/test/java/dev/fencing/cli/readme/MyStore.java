package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.jdbc.JdbcFencedStore;
import javax.sql.DataSource;

/** Stands in for the reader's own store in the snippets of docs/testing.md. */
final class MyStore {

    private MyStore() {}

    static FencedStore connect(DataSource dataSource) {
        return connect(dataSource, Policy.MONOTONIC);
    }

    static FencedStore connect(DataSource dataSource, Policy policy) {
        return JdbcFencedStore.builder(dataSource).policy(policy).build();
    }
}
