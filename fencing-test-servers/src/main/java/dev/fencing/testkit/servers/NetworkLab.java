package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A network of Linux network namespaces for tests that cut real servers apart: each member (a
 * server or a client process) lives in a namespace of its own with one address on a bridge, and
 * the test JVM reaches every member from the root namespace as {@value #HOST}. {@link #cut} drops
 * every packet between two members, in both directions and silently (as a switch that fails does:
 * no reset, no "unreachable"), with {@code iptables} inside the members' namespaces; {@link #heal}
 * lifts every cut. Nothing outside the lab's own namespaces, bridge and addresses is touched.
 *
 * <p>Needs root, {@code ip} (iproute2) and {@code iptables} (Debian's {@code iptables});
 * {@link #unavailable()} says what is missing. A lab whose JVM died without {@link #close()} is
 * removed by the next lab created on the machine. Not thread-safe: one test drives a lab.
 */
public final class NetworkLab implements AutoCloseable {

    /** The root namespace, where the test JVM runs: a name {@link #cut} and {@link #isolate} accept. */
    public static final String HOST = "host";

    private static final String ALIAS_PREFIX = "fencing-lab-pid-";

    private final int id;
    private final String bridge;
    private final Map<String, Integer> members = new LinkedHashMap<>();
    private final Set<String> cuts = new LinkedHashSet<>();
    private boolean closed;

    private NetworkLab(int id) {
        this.id = id;
        this.bridge = "fkb" + id;
    }

    /**
     * Why labs cannot be made on this machine ({@code ip} or {@code iptables} missing, not root),
     * or empty if they can.
     */
    public static Optional<String> unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("network namespaces need root (running as " + System.getProperty("user.name") + ")");
        }
        for (String tool : List.of("ip", "iptables")) {
            if (which(tool).isEmpty()) {
                return Optional.of("no '" + tool + "' on the PATH or in /usr/sbin (apt-get install -y iproute2 iptables)");
            }
        }
        return Optional.empty();
    }

    /**
     * Creates an empty lab: a bridge with the host's address {@code 10.213.ID.1/24}, ID the first
     * free one.
     *
     * @throws IllegalStateException if {@link #unavailable()} or a command of {@code ip} fails
     */
    public static NetworkLab create() {
        unavailable().ifPresent(reason -> {
            throw new IllegalStateException("cannot create a network lab: " + reason);
        });
        removeAbandonedLabs();
        for (int id = 1; id < 250; id++) {
            if (run(List.of("ip", "link", "add", "fkb" + id, "type", "bridge")).exit == 0) {
                NetworkLab lab = new NetworkLab(id);
                Runtime.getRuntime().addShutdownHook(new Thread(lab::close, "fencing-network-lab-" + id));
                lab.ip("link", "set", lab.bridge, "alias", ALIAS_PREFIX + ProcessHandle.current().pid());
                lab.ip("addr", "add", lab.subnet() + "1/24", "dev", lab.bridge);
                lab.ip("link", "set", lab.bridge, "up");
                return lab;
            }
        }
        throw new IllegalStateException("no free network lab id: bridges fkb1 to fkb249 all exist");
    }

    /**
     * Adds a member in a namespace of its own and returns its address, reachable from the host and
     * from every other member until {@link #cut}.
     *
     * @throws IllegalArgumentException if {@code name} is taken, {@value #HOST}, or not 1 to 20 letters, digits or '-'
     */
    public String add(String name) {
        requireOpen();
        if (name.equals(HOST) || members.containsKey(name) || !name.matches("[a-z0-9-]{1,20}")) {
            throw new IllegalArgumentException("a member's name is 1 to 20 of a-z, 0-9 and '-', unique in the lab, and not '"
                    + HOST + "'; got '" + name + "'");
        }
        if (members.size() >= 200) {
            throw new IllegalStateException("a lab holds at most 200 members");
        }
        int index = members.size() + 2; // .1 is the host
        String namespace = namespace(name);
        String outside = "fk" + id + "o" + index;
        String inside = "fk" + id + "i" + index;
        ip("netns", "add", namespace);
        members.put(name, index);
        if (run(List.of(ipBinary(), "link", "add", outside, "type", "veth", "peer", "name", inside)).exit != 0) {
            // a closed lab's namespaces are torn down by the kernel in the background, for seconds: a veth
            // of this id and index may linger; the bridge (this lab's) says nobody else uses the name
            run(List.of(ipBinary(), "link", "del", outside));
            ip("link", "add", outside, "type", "veth", "peer", "name", inside);
        }
        ip("link", "set", outside, "master", bridge);
        ip("link", "set", outside, "up");
        ip("link", "set", inside, "netns", namespace);
        inNamespace(name, "ip", "addr", "add", address(name) + "/24", "dev", inside);
        inNamespace(name, "ip", "link", "set", inside, "up");
        inNamespace(name, "ip", "link", "set", "lo", "up");
        return address(name);
    }

    /** The member's address ({@code 10.213.ID.N}); {@value #HOST}'s is the bridge's. */
    public String address(String name) {
        if (name.equals(HOST)) {
            return subnet() + "1";
        }
        Integer index = members.get(name);
        if (index == null) {
            throw new IllegalArgumentException("no member '" + name + "' in this lab; members: " + members.keySet());
        }
        return subnet() + index;
    }

    /** The members' names, in the order they were added. */
    public List<String> members() {
        return List.copyOf(members.keySet());
    }

    /**
     * {@code command} as it runs inside {@code member}'s namespace ({@code ip netns exec NS ...}):
     * give it to a {@link ProcessBuilder}. {@code ip netns exec} replaces itself with the command,
     * so the process started is the command's own (signals reach it).
     */
    public List<String> commandIn(String member, List<String> command) {
        address(member);
        List<String> wrapped = new ArrayList<>(List.of(ipBinary(), "netns", "exec", namespace(member)));
        wrapped.addAll(command);
        return wrapped;
    }

    /**
     * Drops every packet between {@code a} and {@code b} (either may be {@value #HOST}), both
     * ways, silently: connections between them hang until their own timeouts, new ones are never
     * answered. Cumulative with earlier cuts.
     */
    public void cut(String a, String b) {
        requireOpen();
        if (a.equals(b)) {
            throw new IllegalArgumentException("cannot cut '" + a + "' from itself");
        }
        String inside = a.equals(HOST) ? b : a; // the rules go into a member's namespace, never the host's
        String other = inside.equals(a) ? b : a;
        String pair = inside + "|" + other;
        if (!cuts.add(pair) || cuts.contains(other + "|" + inside)) {
            return;
        }
        String peer = address(other) + "/32";
        inNamespace(inside, "iptables", "-w", "-I", "INPUT", "-s", peer, "-j", "DROP");
        inNamespace(inside, "iptables", "-w", "-I", "OUTPUT", "-d", peer, "-j", "DROP");
    }

    /** Cuts {@code member} from every other member and from the host. */
    public void isolate(String member) {
        address(member);
        cut(member, HOST);
        members.keySet().stream().filter(m -> !m.equals(member)).forEach(m -> cut(member, m));
    }

    /**
     * Splits the lab in two: every member of {@code side} is cut from every member not in it (the
     * host stays connected to everyone unless it is named in {@code side}).
     */
    public void partition(Set<String> side) {
        side.forEach(name -> address(name));
        List<String> everyone = new ArrayList<>(members.keySet());
        everyone.add(HOST);
        for (String in : side) {
            for (String out : everyone) {
                if (!side.contains(out)) {
                    cut(in, out);
                }
            }
        }
    }

    /** Lifts every cut. */
    public void heal() {
        requireOpen();
        Set<String> touched = new LinkedHashSet<>();
        cuts.forEach(pair -> touched.add(pair.substring(0, pair.indexOf('|'))));
        for (String member : touched) {
            inNamespace(member, "iptables", "-w", "-F", "INPUT");
            inNamespace(member, "iptables", "-w", "-F", "OUTPUT");
        }
        cuts.clear();
    }

    /** The cuts in force, as {@code a|b} pairs, for messages and timelines. */
    public Set<String> cuts() {
        return Set.copyOf(cuts);
    }

    /**
     * Removes the members' namespaces and the bridge. Processes still running in a namespace lose
     * their network; stop them first.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (String member : members.keySet()) {
            run(List.of(ipBinary(), "netns", "del", namespace(member)));
        }
        run(List.of(ipBinary(), "link", "del", bridge));
    }

    @Override
    public String toString() {
        return "network lab " + id + " (" + subnet() + "0/24): members " + members.keySet() + ", cuts " + cuts;
    }

    private String subnet() {
        return "10.213." + id + ".";
    }

    private String namespace(String member) {
        return "fk" + id + "-" + member;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the network lab " + id + " is closed");
        }
    }

    private void inNamespace(String member, String... command) {
        List<String> full = new ArrayList<>(List.of(ipBinary(), "netns", "exec", namespace(member),
                which(command[0]).orElse(command[0])));
        full.addAll(List.of(command).subList(1, command.length));
        check(full);
    }

    private void ip(String... arguments) {
        List<String> full = new ArrayList<>(List.of(ipBinary()));
        full.addAll(List.of(arguments));
        check(full);
    }

    private static void check(List<String> command) {
        Result result = run(command);
        if (result.exit != 0) {
            throw new IllegalStateException("'" + String.join(" ", command) + "' failed (exit " + result.exit + "): "
                    + result.output.strip());
        }
    }

    /** Deletes labs (bridges aliased with a process id, and their namespaces) whose process is gone. */
    private static void removeAbandonedLabs() {
        String links = run(List.of(ipBinary(), "-o", "link", "show", "type", "bridge")).output;
        for (String line : links.split("\n")) {
            int at = line.indexOf("alias " + ALIAS_PREFIX);
            String[] fields = line.split(":\\s+");
            if (at < 0 || fields.length < 2 || !fields[1].startsWith("fkb")) {
                continue;
            }
            long pid = Long.parseLong(line.substring(at + ("alias " + ALIAS_PREFIX).length()).trim().split("\\s+")[0]);
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            String labId = fields[1].substring(3).split("@")[0];
            for (String namespace : run(List.of(ipBinary(), "netns", "list")).output.split("\n")) {
                String name = namespace.split("\\s+")[0];
                if (name.startsWith("fk" + labId + "-")) {
                    run(List.of(ipBinary(), "netns", "del", name));
                }
            }
            run(List.of(ipBinary(), "link", "del", "fkb" + labId));
        }
    }

    private static String ipBinary() {
        return which("ip").orElse("ip");
    }

    private static Optional<String> which(String tool) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        return dirs.stream().filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, tool)).filter(Files::isExecutable)
                .map(Path::toString).findFirst();
    }

    private record Result(int exit, String output) {}

    private static Result run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(-1, "timed out after 30 s: " + output);
            }
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command, e);
        }
    }
}
