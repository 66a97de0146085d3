package dev.fencing.testkit.servers;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A server of a {@link LabCluster}, living in a network namespace of its own in a
 * {@link NetworkLab}: what a nemesis does to one. Its data stays across {@link #kill()} and
 * {@link #start()}, so a restarted member rejoins with what it had written.
 */
public interface LabMember {

    /** Its name in the lab, which {@link NetworkLab#cut} and {@link NetworkLab#isolate} take. */
    String name();

    /** Freezes it (SIGSTOP): connections stay open, nothing answers. */
    void pause();

    /** Thaws it (SIGCONT). */
    void resume();

    /** Kills it (SIGKILL): nothing is saved beyond what it had already written to disk. */
    void kill();

    /** Starts it again on the same address and data, once it was killed; returns once it listens. */
    void start();

    /**
     * A file-level copy of its data, as an operator's disk snapshot would take it, for
     * {@link #restore}.
     *
     * @throws IllegalStateException if it is running: kill it first
     */
    Path backUp();

    /**
     * Replaces its data with a {@link #backUp()} taken earlier: old state comes back. Start it
     * afterwards.
     *
     * @throws IllegalStateException if it is running: kill it first
     */
    void restore(Path backup);

    /**
     * Whether {@link #skewClock} works on it: its process runs under libfaketime (Debian's
     * {@code faketime} package), which only servers that read the clock through the C library
     * allow (Redis does; etcd, a Go program, does not).
     */
    default boolean canSkewClock() {
        return false;
    }

    /**
     * Sets its wall clock {@code offset} away from the real one, at once ({@link Duration#ZERO}
     * puts it back): what an NTP step or a VM resumed from a snapshot does to a server.
     *
     * @throws UnsupportedOperationException if it cannot ({@link #canSkewClock()})
     */
    default void skewClock(Duration offset) {
        throw new UnsupportedOperationException(name() + " does not run under libfaketime: its clock cannot be skewed");
    }

    /** Whether its process is running (a paused one is). */
    boolean isRunning();

    /**
     * Waits up to {@code timeout} until it serves clients again (for a member of a quorum: until
     * it has rejoined one).
     *
     * @throws IllegalStateException if it does not within {@code timeout}, naming its log
     */
    void awaitHealthy(Duration timeout);
}
