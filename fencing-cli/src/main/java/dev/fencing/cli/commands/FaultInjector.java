package dev.fencing.cli.commands;

import dev.fencing.cli.backends.Fault;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** The torture runs' fault thread: one fault every interval, in turn, until the deadline or an interrupt. */
final class FaultInjector {

    private FaultInjector() {}

    /**
     * Injects {@code faults} in turn every {@code interval} until {@code deadline} (a
     * {@link System#nanoTime()} reading), counting them in {@code injected}. An interrupt ends it
     * quietly, also when it aborts a fault under way (a server restarting when the run ends); any
     * other failure of a fault is thrown.
     */
    static void run(List<Fault> faults, Duration interval, long deadline, AtomicLong injected) {
        if (faults.isEmpty()) {
            return;
        }
        int next = 0;
        try {
            while (true) {
                Thread.sleep(interval.toMillis());
                if (System.nanoTime() >= deadline) {
                    return;
                }
                faults.get(next++ % faults.size()).action().run();
                injected.incrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (!interruptedBy(e)) {
                throw e;
            }
            Thread.currentThread().interrupt();
        }
    }

    private static boolean interruptedBy(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }
}
