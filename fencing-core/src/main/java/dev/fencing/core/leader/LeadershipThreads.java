package dev.fencing.core.leader;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads every {@link Leadership} of the JVM shares: one timer that only ticks (validity
 * checks, backoff delays), and workers created on demand, ended after 30 s idle, for listener
 * calls and lease releases, which may wait for a server.
 */
final class LeadershipThreads {

    static final ScheduledThreadPoolExecutor TIMER = timer();
    static final ExecutorService WORKERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), daemons("fencing-leadership-worker-"));

    private LeadershipThreads() {}

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemons("fencing-leadership-timer-"));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
