package dev.fencing.jdbc;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.core.internal.SafeListener;

/** The settings {@link JdbcFence} and {@link JdbiFence} share, checked as they are set. */
final class FenceSettings {

    private String table = JdbcFence.DEFAULT_TABLE;
    private Policy policy = Policy.MONOTONIC;
    private FencingListener listener = FencingListener.NONE;

    void table(String table) {
        this.table = Sql.requireTable(table);
    }

    void policy(Policy policy) {
        if (policy == null) {
            throw new IllegalArgumentException("policy must not be null");
        }
        this.policy = policy;
    }

    void listener(FencingListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null (FencingListener.NONE for none)");
        }
        this.listener = listener;
    }

    String table() {
        return table;
    }

    Fence fence() {
        return new Fence(table, policy, SafeListener.of(listener));
    }
}
