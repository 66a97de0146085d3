package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.shedlock.FencedLocks;
import dev.fencing.shedlock.FencedShedLockProvider;
import java.time.Duration;
import java.time.Instant;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;

/** The Java snippet of docs/shedlock.md, verbatim: compiled by the build, found in the docs by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class ShedLockSnippets {

    private ShedLockSnippets() {}

    static void shedLock(RedisLockProvider locks, FencedStore ledger) {
        FencedShedLockProvider shedLock = FencedShedLockProvider.create(locks);   // any toolkit provider
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(shedLock);
        executor.executeWithLock((Runnable) () -> {
            // a late write of an execution that outlived lockAtMostFor is refused by the store
            ledger.write(FencedLocks.currentToken(), "day", "closed");
        }, new LockConfiguration(Instant.now(), "close-day", Duration.ofMinutes(5), Duration.ofSeconds(30)));
    }
}
