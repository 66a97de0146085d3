package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;
import software.amazon.awssdk.http.SdkHttpClient;

/**
 * What every technology's opener shares while {@link Backends} opens a lock and a store: the
 * connection options, whether to write nothing, and the servers and clients to close when the run
 * ends (last opened, first closed).
 */
final class Opening implements AutoCloseable {

    final ConnectionOptions connections;
    final boolean readOnly;
    final TlsFiles tls;
    final Duration timeout;
    /** The lock providers' clock. */
    final dev.fencing.core.MonotonicClock clock;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    Opening(ConnectionOptions connections, boolean readOnly) {
        this.connections = connections;
        this.readOnly = readOnly;
        this.tls = connections.tls();
        this.timeout = connections.timeout();
        this.clock = connections.clock();
    }

    /** Closes {@code resource} when the run ends, before what was opened earlier. */
    void closeLater(AutoCloseable resource) {
        resources.push(resource);
    }

    /** An HTTP client for the AWS SDK with the TLS files (closed when the run ends). */
    SdkHttpClient awsHttpClient() {
        SdkHttpClient client = tls.awsHttpClient();
        closeLater(client::close);
        return client;
    }

    /** Exit 3: {@code what} could not be reached, the driver's reason, and the option that points elsewhere. */
    static CliException unreachable(String what, String howToPoint, Exception cause) {
        return new CliException(ExitCode.UNREACHABLE, what + " could not be reached: " + Reasons.of(cause)
                + ". Start it, or point the CLI at another with " + howToPoint + ".");
    }

    /** A plain TCP connect to any of {@code addresses}: a dead address is exit 3 with the OS's reason at once. */
    static void probe(List<InetSocketAddress> addresses, Duration timeout, String what, String howToPoint) {
        try {
            TcpProbe.anyAccepts(addresses, timeout);
        } catch (IOException e) {
            throw unreachable(what, howToPoint, e);
        }
    }

    /** Starts an embedded server; one that cannot start (no etcd binary, say) is reported like an unreachable one. */
    static <S> S started(String what, String howToPoint, Supplier<S> launch) {
        try {
            return launch.get();
        } catch (RuntimeException e) {
            throw new CliException(ExitCode.UNREACHABLE, what + " could not be started: " + Reasons.of(e)
                    + ". Point the CLI at a running server instead with " + howToPoint + ".");
        }
    }

    @Override
    public void close() {
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception ignored) {
                // closing the rest matters more
            }
        }
    }
}
