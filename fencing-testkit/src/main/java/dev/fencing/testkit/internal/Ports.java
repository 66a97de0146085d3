package dev.fencing.testkit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

/** Free loopback ports, and waiting for a port to accept connections. */
public final class Ports {

    private Ports() {}

    /** A port that was free on 127.0.0.1 a moment ago. */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** Whether something accepts TCP connections on 127.0.0.1:{@code port}. */
    public static boolean isOpen(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until {@code port} accepts connections, or throws after {@code timeout}. */
    public static void awaitOpen(int port, Duration timeout, Process process, String what) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!isOpen(port)) {
            if (process != null && !process.isAlive()) {
                throw new IllegalStateException(what + " exited with code " + process.exitValue()
                        + " before it listened on port " + port);
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException(what + " did not listen on port " + port + " within " + timeout);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
