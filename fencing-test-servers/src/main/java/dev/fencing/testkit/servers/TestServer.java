package dev.fencing.testkit.servers;

/**
 * A server a test talks to. When the testkit started it ({@link #isManaged()}), fault tests may
 * stop, kill, pause and restart it; an external server (given by a {@code FENCING_*} variable)
 * refuses those with {@link UnsupportedOperationException}, and fault tests skip with a printed
 * reason.
 */
public interface TestServer {

    /** A short description: kind and address. */
    String describe();

    /** Whether the testkit started this server, so faults can be injected. */
    boolean isManaged();

    /** Stops the server gracefully; {@link #start()} brings it back on the same port. */
    void stop();

    /** Kills the server abruptly (SIGKILL). */
    void kill();

    /** Starts a stopped or killed server on the same port. */
    void start();
}
