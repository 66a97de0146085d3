package net.javacrumbs.shedlock.support;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;

/**
 * Test access to KeepAliveLockProvider's package-private constructor with a shorter minimal
 * lockAtMostFor (the public one insists on 30 s, so a test would run for 15 s before the first
 * extension).
 */
public final class ShortKeepAlive {

    private ShortKeepAlive() {}

    /** A keep-alive over {@code wrapped} extending every lockAtMostFor / 2, for locks of at least {@code minimal}. */
    public static KeepAliveLockProvider over(ExtensibleLockProvider wrapped, ScheduledExecutorService timer,
            Duration minimal) {
        return new KeepAliveLockProvider(wrapped, timer, minimal);
    }
}
