package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.Ports;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One server of a {@link ZooKeeperLabEnsemble}: a child JVM in its network namespace, asked what
 * it is with ZooKeeper's {@code srvr} four-letter word (a second at most, so a paused or cut
 * member answers "not serving" rather than hanging the caller).
 */
public final class ZooKeeperLabMember extends ProcessLabMember {

    private final String name;
    private final String address;
    private final ChildProcess process;
    private final Path data;

    ZooKeeperLabMember(String name, String address, List<String> command, Path directory) {
        this.name = name;
        this.address = address;
        this.process = new ChildProcess("zookeeper-" + name, command, address, ZooKeeperLabEnsemble.CLIENT_PORT,
                Duration.ofSeconds(60));
        this.process.deleteAtExit(directory);
        this.data = directory.resolve("data");
    }

    @Override
    public String name() {
        return name;
    }

    /** Its address in the lab. */
    public String address() {
        return address;
    }

    /** {@code address:2181}: a connect string that reaches this member alone. */
    public String connectString() {
        return address + ":" + ZooKeeperLabEnsemble.CLIENT_PORT;
    }

    /**
     * What {@code srvr} says its mode is ({@code leader}, {@code follower}), or empty if it does
     * not serve clients now (electing, cut off from a quorum, paused, down).
     */
    public String mode() {
        String reply = ask("srvr");
        for (String line : reply.split("\n")) {
            if (line.startsWith("Mode: ")) {
                return line.substring("Mode: ".length()).strip();
            }
        }
        return "";
    }

    /** Whether it says it leads the ensemble. */
    public boolean isLeader() {
        return mode().equals("leader");
    }

    /** Whether it serves clients as a member of a quorum. */
    public boolean isHealthy() {
        String mode = mode();
        return mode.equals("leader") || mode.equals("follower");
    }

    @Override
    public void awaitHealthy(Duration timeout) {
        Ports.awaitCondition(describe() + " serving", timeout, this::isHealthy,
                () -> describe() + " did not join a quorum within " + timeout + "; see " + process.log());
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
        return "ZooKeeper " + name + " at " + connectString() + " (log " + process.log() + ")";
    }

    /**
     * Its answer to a four-letter word ({@code srvr}, {@code cons}, {@code stat}, {@code ruok},
     * {@code mntr}), within a second; empty if it gives none.
     */
    public String ask(String word) {
        if (!word.matches("[a-z]{4}")) {
            throw new IllegalArgumentException("a four-letter word is 4 of a-z, got '" + word + "'");
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, ZooKeeperLabEnsemble.CLIENT_PORT), 1000);
            socket.setSoTimeout(1000);
            socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
