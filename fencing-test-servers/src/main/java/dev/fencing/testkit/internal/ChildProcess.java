package dev.fencing.testkit.internal;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A server run as a child process on a fixed loopback port: start, stop (SIGTERM), kill
 * (SIGKILL), pause (SIGSTOP) and resume (SIGCONT). Its output goes to a log file named in every
 * error message. A JVM shutdown hook kills it if it is still running. Stopping or killing it
 * ends its descendants too (a server whose master forks workers, as gunicorn does), so no orphan
 * keeps the port.
 */
public final class ChildProcess {

    private static final int TEXT_FILE_BUSY_ATTEMPTS = 20;

    private final String name;
    private final List<String> command;
    private final String host;
    private final int port;
    private final Path log;
    private final Duration startTimeout;
    private @Nullable Process process;
    private @Nullable Path scratch;

    /**
     * @param name for messages and the log file name
     * @param command the command line, already containing {@code port}
     * @param port the port the server listens on once ready
     */
    public ChildProcess(String name, List<String> command, int port, Duration startTimeout) {
        this(name, command, "127.0.0.1", port, startTimeout);
    }

    /**
     * As {@link #ChildProcess(String, List, int, Duration)}, for a server listening on
     * {@code host} (an address in a network namespace, say) rather than loopback.
     */
    public ChildProcess(String name, List<String> command, String host, int port, Duration startTimeout) {
        this.name = name;
        this.command = List.copyOf(command);
        this.host = host;
        this.port = port;
        this.startTimeout = startTimeout;
        this.log = logDirectory().resolve(name + "-" + (host.equals("127.0.0.1") ? "" : host + "-") + port + ".log");
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopQuietly, "fencing-testkit-stop-" + name));
    }

    private static Path logDirectory() {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "fencing-testkit");
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    /** A directory of the server's own, deleted when the JVM exits, after the server stopped. */
    public synchronized void deleteAtExit(Path directory) {
        this.scratch = directory;
    }

    /** Starts the process and waits until its port accepts connections. */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running on port " + port);
        }
        if (Ports.isOpen(host, port)) {
            throw new IllegalStateException(host + ":" + port + " is taken; cannot start " + name);
        }
        process = launch();
        try {
            Ports.awaitOpen(host, port, startTimeout, process, name);
        } catch (IllegalStateException e) {
            killQuietly();
            throw new IllegalStateException(e.getMessage() + "; see " + log, e);
        }
    }

    /**
     * Starts the command. A binary unpacked a moment ago can fail with "Text file busy" (ETXTBSY)
     * while another thread of this JVM forks a child that inherited the unpacking's still-open
     * write descriptor; the child closes it when it execs, so the start is tried again, up to
     * {@link #TEXT_FILE_BUSY_ATTEMPTS} times.
     */
    private Process launch() {
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .directory(new File(System.getProperty("java.io.tmpdir")));
        for (int attempt = 1; ; attempt++) {
            try {
                return builder.start();
            } catch (IOException e) {
                if (attempt >= TEXT_FILE_BUSY_ATTEMPTS || !String.valueOf(e.getMessage()).contains("error=26")) {
                    throw new UncheckedIOException("cannot start " + name + " with " + command, e);
                }
                try {
                    Thread.sleep(20L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new UncheckedIOException("interrupted starting " + name, e);
                }
            }
        }
    }

    /** Stops the process gracefully (SIGTERM) and waits for it to exit. */
    public synchronized void stop() {
        end(false);
    }

    /** Kills the process (SIGKILL): no shutdown work, nothing saved. */
    public synchronized void kill() {
        end(true);
    }

    /** Freezes the process and its descendants (SIGSTOP): its port stays open but nothing answers. */
    public synchronized void pause() {
        signal("STOP");
    }

    /** Thaws a paused process and its descendants (SIGCONT). */
    public synchronized void resume() {
        signal("CONT");
    }

    /** Whether the process is running. */
    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The port the server listens on. */
    public int port() {
        return port;
    }

    /** The log file. */
    public Path log() {
        return log;
    }

    private void end(boolean force) {
        if (process == null) {
            return;
        }
        List<ProcessHandle> descendants = process.descendants().toList();
        if (force) {
            process.destroyForcibly();
            descendants.forEach(ProcessHandle::destroyForcibly);
        } else {
            process.destroy();
        }
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            for (ProcessHandle descendant : descendants) { // a worker outliving its master would keep the port
                try {
                    descendant.onExit().get(10, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    descendant.destroyForcibly();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + name, e);
        }
        process = null;
        awaitPortClosed();
    }

    private void awaitPortClosed() {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Ports.isOpen(host, port) && System.nanoTime() - end < 0) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void signal(String signal) {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException(name + " is not running");
        }
        try {
            // the whole tree, as a paused machine would be: a server whose master forks a process per
            // connection (PostgreSQL) would otherwise go on answering through its children
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
            List<String> children = new java.util.ArrayList<>(List.of("kill", "-" + signal));
            process.descendants().forEach(child -> children.add(Long.toString(child.pid())));
            if (children.size() > 2) {
                new ProcessBuilder(children).start().waitFor(); // best effort: a child may have just exited
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    /** SIGTERM first, so the server can clean up its temporary files; SIGKILL if it lingers. */
    private synchronized void stopQuietly() {
        if (process != null) {
            List<ProcessHandle> descendants = process.descendants().toList();
            process.destroy();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process.destroyForcibly();
            descendants.forEach(ProcessHandle::destroyForcibly);
        }
        if (scratch != null) {
            try (var files = Files.walk(scratch)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // best effort at exit
            }
        }
    }

    private synchronized void killQuietly() {
        if (process != null) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return name + " on " + host + ":" + port;
    }
}
