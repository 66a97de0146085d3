package dev.fencing.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.cli.backends.Nemesis;
import dev.fencing.testkit.servers.NetworkLab;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The workers of a torture run as client processes: each a JVM of this CLI ({@code torture
 * --client-of DIR}), in a network namespace of its own in the cluster's lab, so the nemesis can cut
 * one client from some members and not the others, and freeze a client whole. Each writes what it
 * saw to {@code DIR} when its run ends: its history, grants, lease spans, accepted writes and
 * counts, which the parent merges and checks. {@link #close()} kills any still running.
 */
final class ClientProcesses implements AutoCloseable {

    /** A client's output, as it wrote it at the end of its run. */
    record Output(int id, JsonNode record, Path history) {}

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path directory;
    private final List<Nemesis.Client> clients = new ArrayList<>();

    private ClientProcesses(Path directory) {
        this.directory = directory;
    }

    /**
     * Starts {@code count} clients named {@code client1, client2, ...} in {@code lab}, each running
     * {@code torture} with {@code arguments} (the lock's and store's addresses, the run's
     * parameters), and waits until each has opened its lock and store.
     *
     * @throws CliException (exit 3) naming a client's log if one ends or is not ready within {@code readyTimeout}
     */
    static ClientProcesses launch(NetworkLab lab, int count, List<String> arguments, Duration readyTimeout) {
        ClientProcesses launched;
        try {
            launched = new ClientProcesses(Files.createTempDirectory("fencing-torture-clients-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a folder for the client processes' outputs", e);
        }
        try {
            String java = ProcessHandle.current().info().command()
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            for (int id = 1; id <= count; id++) {
                String name = "client" + id;
                lab.add(name);
                Path clock = launched.directory.resolve("client-" + id + ".clock"); // its provider's clock rate
                Files.writeString(clock, "1\n");
                List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                        "dev.fencing.cli.FencingCli", "torture", "--client-of", launched.directory.toString(),
                        "--client-id", Integer.toString(id), "--clock-file", clock.toString()));
                command.addAll(arguments);
                Process process = new ProcessBuilder(lab.commandIn(name, command)).redirectErrorStream(true)
                        .redirectOutput(launched.log(id).toFile()).start();
                launched.clients.add(new Nemesis.Client(name, process, clock));
            }
            long deadline = System.nanoTime() + readyTimeout.toNanos();
            for (int id = 1; id <= count; id++) {
                Nemesis.Client client = launched.clients.get(id - 1);
                while (!Files.exists(launched.ready(id))) {
                    if (!client.process().isAlive() || System.nanoTime() - deadline > 0) {
                        throw new CliException(ExitCode.UNREACHABLE, client.name() + " did not open its lock and store"
                                + (client.process().isAlive() ? " within " + readyTimeout.toSeconds() + " s"
                                        : " (it exited with " + client.process().exitValue() + ")") + "; see "
                                + launched.log(id) + ": " + launched.tail(id));
                    }
                    Thread.sleep(20);
                }
            }
            return launched;
        } catch (IOException e) {
            launched.close();
            throw new UncheckedIOException("cannot start a client process", e);
        } catch (InterruptedException e) {
            launched.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted starting the client processes", e);
        } catch (RuntimeException e) {
            launched.close();
            throw e;
        }
    }

    /** The clients, for the nemesis. */
    List<Nemesis.Client> clients() {
        return List.copyOf(clients);
    }

    /** Whether any client is still running. */
    boolean anyAlive() {
        return clients.stream().anyMatch(c -> c.process().isAlive());
    }

    /**
     * Waits up to {@code timeout} for every client to end and reads what each wrote.
     *
     * @throws CliException (exit 3) naming the log of a client that did not end, failed, or wrote nothing
     */
    List<Output> outputs(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Output> outputs = new ArrayList<>();
        for (int id = 1; id <= clients.size(); id++) {
            Process process = clients.get(id - 1).process();
            if (!process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw new CliException(ExitCode.UNREACHABLE, "client" + id + " did not end within " + timeout.toSeconds()
                        + " s of the run's end; see " + log(id));
            }
            Path record = directory.resolve("client-" + id + ".json");
            if (process.exitValue() != 0 || !Files.exists(record)) {
                throw new CliException(ExitCode.UNREACHABLE, "client" + id + " exited with " + process.exitValue()
                        + " and no record of its run; see " + log(id) + ": " + tail(id));
            }
            try {
                outputs.add(new Output(id, MAPPER.readTree(record.toFile()), directory.resolve("client-" + id + ".history")));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + record, e);
            }
        }
        return outputs;
    }

    /** Where client {@code id} says it is ready: its lock and store are open. */
    static Path readyFile(Path directory, int id) {
        return directory.resolve("client-" + id + ".ready");
    }

    private Path ready(int id) {
        return readyFile(directory, id);
    }

    private Path log(int id) {
        return directory.resolve("client-" + id + ".log");
    }

    private String tail(int id) {
        try {
            List<String> lines = Files.readAllLines(log(id));
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    @Override
    public void close() {
        for (Nemesis.Client client : clients) {
            ProcessHandle handle = client.process().toHandle();
            if (handle.isAlive()) {
                try {
                    new ProcessBuilder("kill", "-CONT", Long.toString(handle.pid())).start().waitFor(); // if frozen
                } catch (IOException e) {
                    // killed below either way
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                handle.destroyForcibly();
            }
        }
    }
}
