package dev.fencing.cli.readme;

import dev.fencing.redis.RedisLockProvider;

/** Stands in for the reader's own provider in the snippets of docs/testing.md. */
final class MyProvider {

    private MyProvider() {}

    static RedisLockProvider.Builder builder(String uri) {
        return RedisLockProvider.builder(uri);
    }
}
