package dev.fencing.testkit;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * "Never in this time": a condition polled every 20 ms must hold at every look until {@code during}
 * has passed since the start, and the first look at which it does not fails at once. Unlike
 * Awaitility's {@code during(..).atMost(..)}, a look that is slow on a busy machine (a request over
 * TLS that took a second) only lengthens the wait, and a condition that fails and holds again later
 * (another owner got the lock, then the same call refused it again) is not given a second start.
 */
public final class Holds {

    private Holds() {}

    /**
     * Polls {@code condition} until {@code during} has passed since this call, failing with an
     * {@link AssertionError} naming {@code what} at the first look at which it is false (or throws).
     */
    public static void throughout(String what, Duration during, Callable<Boolean> condition) {
        long end = System.nanoTime() + during.toNanos();
        await(what).atMost(during.plusSeconds(60)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    if (!condition.call()) {
                        throw new AssertionError(what + ": did not hold at a look "
                                + Duration.ofNanos(during.toNanos() - (end - System.nanoTime())).toMillis()
                                + " ms into the " + during.toMillis() + " ms it must hold for");
                    }
                    return System.nanoTime() - end >= 0;
                });
    }
}
