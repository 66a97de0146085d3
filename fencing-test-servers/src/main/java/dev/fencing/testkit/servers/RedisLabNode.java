package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One independent Redis master of {@link RedisLabNodes}: a {@code redis-server} child process in
 * its network namespace, with an append-only file fsynced on every write, so that a kill and a
 * start bring back every lock it had granted (a Redlock node must not forget, or a majority can be
 * granted twice).
 */
public final class RedisLabNode extends ProcessLabMember {

    /** Debian's libfaketime: with it, every node runs under it so that its clock can be skewed. */
    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    /** The port every node listens on, on its own address. */
    public static final int PORT = 6379;

    private final String name;
    private final String address;
    private final int port;
    private final ChildProcess process;
    private final Path data;
    private final @Nullable Path clockFile;

    RedisLabNode(NetworkLab lab, String name, Path directory) throws IOException {
        this(lab, name, directory, PORT, (address, data) -> List.of("--port", Integer.toString(PORT), "--bind", address,
                "--protected-mode", "no", "--daemonize", "no", "--save", "", "--appendonly", "yes", "--appendfsync",
                "always", "--dir", data.toString()));
    }

    /**
     * A {@code redis-server} in its namespace on {@code port}, run with {@code arguments(address,
     * data directory)} (which may write a configuration file into the data directory).
     */
    RedisLabNode(NetworkLab lab, String name, Path directory, int port, Arguments arguments) throws IOException {
        Files.createDirectories(directory.resolve("data"));
        this.name = name;
        this.address = lab.add(name);
        this.port = port;
        List<String> command = new ArrayList<>();
        if (Files.exists(LIBFAKETIME)) {
            clockFile = directory.resolve("clock-offset");
            Files.writeString(clockFile, "+0\n");
            command.addAll(List.of("env", "LD_PRELOAD=" + LIBFAKETIME, "FAKETIME_TIMESTAMP_FILE=" + clockFile,
                    "FAKETIME_NO_CACHE=1"));
        } else {
            clockFile = null;
        }
        command.add(RedisTestServer.binary().toString());
        command.addAll(arguments.of(address, directory.resolve("data")));
        this.process = new ChildProcess("redis-" + name, lab.commandIn(name, command), address, port,
                Duration.ofSeconds(20));
        this.process.deleteAtExit(directory);
        this.data = directory.resolve("data");
    }

    /** The {@code redis-server} arguments of a node, from its address and data directory. */
    @FunctionalInterface
    interface Arguments {
        List<String> of(String address, Path data) throws IOException;
    }

    /** Its address in the lab. */
    public String address() {
        return address;
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    @Override
    public String name() {
        return name;
    }

    /** {@code redis://address:6379}, for Lettuce. */
    public String uri() {
        return "redis://" + address + ":" + port;
    }

    /** Whether it answers PING within a second. */
    public boolean isHealthy() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), 1000);
            socket.setSoTimeout(1000);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] reply = new byte[7];
            int read = socket.getInputStream().readNBytes(reply, 0, reply.length);
            return new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void awaitHealthy(Duration timeout) {
        Ports.awaitCondition(describe() + " answering PING", timeout, this::isHealthy,
                () -> describe() + " did not answer PING within " + timeout + "; see " + process.log());
    }

    /** Whether libfaketime was there when it was created. */
    @Override
    public boolean canSkewClock() {
        return clockFile != null;
    }

    /** Sets its clock {@code offset} (whole seconds) from the real one; its keys expire by that clock. */
    @Override
    public void skewClock(Duration offset) {
        if (clockFile == null) {
            throw new UnsupportedOperationException(describe() + " does not run under libfaketime ("
                    + LIBFAKETIME + " is missing: apt-get install faketime)");
        }
        long seconds = offset.toSeconds();
        try {
            Files.writeString(clockFile, (seconds < 0 ? "" : "+") + seconds + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + clockFile, e);
        }
    }

    @Override
    ChildProcess process() {
        return process;
    }

    @Override
    Path data() {
        return data;
    }

    /** Its name, address and log. */
    @Override
    public String describe() {
        return "Redis " + name + " at " + address + ":" + port + " (log " + process.log() + ")";
    }
}
