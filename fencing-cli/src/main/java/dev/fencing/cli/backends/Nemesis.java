package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.testkit.servers.LabCluster;
import dev.fencing.testkit.servers.LabMember;
import dev.fencing.testkit.servers.NetworkLab;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jspecify.annotations.Nullable;

/**
 * The torture test's nemesis on a cluster whose members live in network namespaces of their own
 * ({@link NetworkLab}): each fault picks its target with a random generator seeded once per run,
 * so a seed replays the same choices; it holds the fault for a while, then undoes it. Every start
 * and end is recorded with its time for the report and the timeline.
 *
 * <ul>
 *   <li>{@code partition}: in turn, one member isolated from everyone; the leader cut from the
 *       other members while the clients still reach it; the clients cut from the leader; a
 *       follower cut from the other members while the clients still reach it (it answers from
 *       its own copy until it notices); a bridge (two halves apart, one member reaching both).
 *   <li>{@code pause}: a member frozen (SIGSTOP), the leader every other time, then thawed; with
 *       client processes, every third pause (the first among them) freezes a client process whole instead.
 *   <li>{@code kill}: a member killed (SIGKILL), then started again from its data. On a cluster
 *       that promotes replicas (PostgreSQL) a primary dies with commits its replica missed, the
 *       replica is promoted, and the old primary comes back as a replica of the new one.
 *   <li>{@code restore}: every member killed at once and its data replaced by the snapshot taken
 *       before the run (when the faults are chosen), so the whole cluster forgets everything it
 *       granted, as after a restore from an operator's backup; then all start again.
 *   <li>{@code restore-member}: one member (the leader every other time) killed, its data
 *       replaced by the snapshot taken before the run, started again: it alone forgets what it
 *       granted since, while the others remember.
 *   <li>{@code skew}: the clocks of a majority of the members jumped 30 s ahead (libfaketime; Redis
 *       masters only), then put back: every key they hold expires at once; with client processes,
 *       a client's lock-provider clock run at a quarter of its speed instead.
 * </ul>
 */
public final class Nemesis {

    /** The faults a nemesis knows, in the order {@code --nemesis} lists them. */
    public static final List<String> KINDS = List.of("partition", "pause", "kill", "restore", "restore-member", "skew");

    /** How far {@code skew} moves a member's clock: beyond any TTL a torture run uses. */
    static final Duration SKEW = Duration.ofSeconds(30);

    private static final Duration RECOVERY = Duration.ofSeconds(30);

    /**
     * A client process of the run, in a network namespace of its own: the nemesis may cut it off,
     * freeze it, or slow its lock provider's clock by writing a rate into {@code clockFile}.
     */
    public record Client(String name, Process process, Path clockFile) {}

    private final NetworkLab lab;
    private final LabCluster cluster;
    private volatile List<Client> clients = List.of();
    private final Random random;
    private final long seed;
    private final long startNanos = System.nanoTime();
    private final List<Map<String, Object>> events = Collections.synchronizedList(new ArrayList<>());
    private int partitions;
    private int pauses;
    private int memberRestores;
    private volatile boolean clientsToCome;
    private @Nullable List<Path> snapshot; // the members' data before the run, when restore is a fault
    private long snapshotAtMillis;

    Nemesis(NetworkLab lab, LabCluster cluster, long seed) {
        this.lab = lab;
        this.cluster = cluster;
        this.seed = seed;
        this.random = new Random(seed);
    }

    /**
     * A network lab for a run's cluster, closed with the run.
     *
     * @throws CliException (exit 3) if labs cannot be made here, saying why
     */
    static NetworkLab openLab(Opening opening) {
        NetworkLab.unavailable().ifPresent(reason -> {
            throw new CliException(ExitCode.UNREACHABLE, "--cluster puts each member in a network namespace of its own,"
                    + " and " + reason + ". Without --cluster, torture's --faults run on servers on loopback.");
        });
        NetworkLab lab;
        try {
            lab = NetworkLab.create();
        } catch (RuntimeException e) {
            throw new CliException(ExitCode.UNREACHABLE, "--cluster: could not make the network namespaces: "
                    + Reasons.of(e));
        }
        opening.closeLater(lab);
        return lab;
    }

    /**
     * Says client processes will be {@linkplain #attachClients attached} before the run, before
     * {@link #faults} is asked: {@code skew} may then slow their clocks.
     */
    void expectClients() {
        clientsToCome = true;
    }

    /** The network lab the cluster lives in. */
    public NetworkLab lab() {
        return lab;
    }

    /** The cluster it injects faults into. */
    public LabCluster cluster() {
        return cluster;
    }

    /**
     * The run's client processes, each in a namespace of its own: from then on a partition may cut
     * one client from the leader (or from a majority) while the others still reach it, and every
     * third pause, the first among them, freezes a client process whole.
     */
    public void attachClients(List<Client> attached) {
        this.clients = List.copyOf(attached);
    }

    /** When its clock started (a {@link System#nanoTime()} reading): events' {@code atMillis} count from it. */
    public long startNanos() {
        return startNanos;
    }

    /** The seed the targets and hold times are drawn from. */
    public long seed() {
        return seed;
    }

    /** What happened, in order: {@code atMillis} since the cluster started, {@code event}, {@code target}. */
    public List<Map<String, Object>> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** The faults named in {@code names} (each one of {@link #KINDS}), for the fault thread. */
    List<Fault> faults(List<String> names) {
        List<Fault> faults = new ArrayList<>();
        for (String name : names) {
            faults.add(switch (name) {
                case "partition" -> new Fault(name, "cut members apart in turn: one isolated, the leader from the others,"
                        + " the clients from the leader, a follower from the others, a bridge; healed after 1 to 3 s",
                        this::partition);
                case "pause" -> new Fault(name, "freeze a member (SIGSTOP; the leader every other time) for 1 to 3 s",
                        this::pause);
                case "kill" -> new Fault(name, "kill a member (SIGKILL), start it again from its data after 1 to 3 s"
                        + (cluster.promotesReplicas() ? "; a primary is first cut from its replica, then killed, the"
                                + " replica promoted, and it comes back as a replica" : ""), this::kill);
                case "skew" -> {
                    if (!clientsToCome && cluster.members().stream().noneMatch(LabMember::canSkewClock)) {
                        throw new CliException(ExitCode.USAGE, "--nemesis skew moves the clocks of servers run under"
                                + " libfaketime (the Redis masters of --cluster redlock:N, with Debian's faketime package"
                                + " installed: apt-get install faketime) or of --client-processes; " + cluster.describe()
                                + " cannot");
                    }
                    yield new Fault(name, "jump the clocks of a majority of the members " + SKEW.toSeconds()
                            + " s ahead (every key they hold expires at once), or run a client process's clock at a"
                            + " quarter of its speed (with --client-processes), for 1 to 3 s", this::skew);
                }
                case "restore" -> {
                    takeSnapshot();
                    yield new Fault(name, "kill every member, replace their data with the snapshot taken before the"
                            + " run (the cluster forgets everything it granted), start them all", this::restore);
                }
                case "restore-member" -> {
                    if (cluster.promotesReplicas()) {
                        throw new CliException(ExitCode.USAGE, "--nemesis restore-member restores one member alone, which"
                                + " a PostgreSQL primary and its replica do not survive without rebuilding the replica"
                                + " (its WAL would be ahead of the restored primary's); use restore, which restores both");
                    }
                    takeSnapshot();
                    yield new Fault(name, "kill one member (the leader every other time), replace its data with the"
                            + " snapshot taken before the run, start it: it alone forgets what it granted since",
                            this::restoreMember);
                }
                default -> throw new IllegalArgumentException("--nemesis: no fault '" + name + "'; known: "
                        + String.join(", ", KINDS));
            });
        }
        return faults;
    }

    private void partition() {
        if (!cluster.electsLeader()) {
            partitionIndependent();
            return;
        }
        LabMember leader = leader();
        List<? extends LabMember> members = cluster.members();
        String what;
        switch (partitions++ % 5) {
            case 0 -> {
                LabMember target = members.get(random.nextInt(members.size()));
                lab.isolate(target.name());
                what = "isolate " + target.name() + (target == leader ? " (the leader)" : "");
            }
            case 1 -> {
                members.stream().filter(m -> m != leader).forEach(m -> lab.cut(leader.name(), m.name()));
                what = "cut the leader " + leader.name() + " from the other members; the clients still reach it";
            }
            case 2 -> {
                List<Client> attached = clients;
                if (attached.isEmpty()) {
                    lab.cut(NetworkLab.HOST, leader.name());
                    what = "cut the clients from the leader " + leader.name();
                } else {
                    Client client = attached.get(random.nextInt(attached.size()));
                    lab.cut(client.name(), leader.name());
                    what = "cut " + client.name() + " from the leader " + leader.name() + "; the other clients still"
                            + " reach it";
                }
            }
            case 4 -> what = bridge(members);
            default -> {
                List<LabMember> followers = members.stream().filter(m -> m != leader).map(LabMember.class::cast)
                        .toList();
                LabMember target = followers.get(random.nextInt(followers.size()));
                members.stream().filter(m -> m != target).forEach(m -> lab.cut(target.name(), m.name()));
                what = "cut the follower " + target.name() + " from the other members; the clients still reach it";
            }
        }
        holdThenHeal(what);
    }

    /**
     * Jepsen's bridge: the members in two halves that cannot reach each other, and one member in
     * the middle that reaches both (a majority on each side counts it); the clients reach everyone.
     */
    private String bridge(List<? extends LabMember> members) {
        List<LabMember> shuffled = new ArrayList<>(members);
        Collections.shuffle(shuffled, random);
        LabMember middle = shuffled.get(0);
        List<LabMember> rest = shuffled.subList(1, shuffled.size());
        List<LabMember> left = rest.subList(0, rest.size() / 2);
        List<LabMember> right = rest.subList(rest.size() / 2, rest.size());
        left.forEach(a -> right.forEach(b -> lab.cut(a.name(), b.name())));
        return "bridge: " + names(left) + " | " + middle.name() + " | " + names(right) + " (only " + middle.name()
                + " reaches both sides)";
    }

    /**
     * Partitions of servers that elect no leader (Redlock's masters), in turn: one isolated; the
     * clients cut from a minority (a majority still grants); the clients cut from a majority (no
     * grant, no renewal: every lease ends on its TTL).
     */
    private void partitionIndependent() {
        List<LabMember> shuffled = new ArrayList<>(cluster.members());
        Collections.shuffle(shuffled, random);
        int minority = (shuffled.size() - 1) / 2;
        String what;
        switch (partitions++ % 3) {
            case 0 -> {
                lab.isolate(shuffled.get(0).name());
                what = "isolate " + shuffled.get(0).name();
            }
            case 1 -> {
                List<String> sides = clients.isEmpty() ? List.of(NetworkLab.HOST)
                        : clients.stream().map(Client::name).toList();
                shuffled.subList(0, minority).forEach(m -> sides.forEach(c -> lab.cut(c, m.name())));
                what = "cut the clients from a minority: " + names(shuffled.subList(0, minority));
            }
            default -> {
                List<Client> attached = clients;
                String side = attached.isEmpty() ? NetworkLab.HOST : attached.get(random.nextInt(attached.size())).name();
                shuffled.subList(0, minority + 1).forEach(m -> lab.cut(side, m.name()));
                what = "cut " + (attached.isEmpty() ? "the clients" : side + " (the other clients still reach them)")
                        + " from a majority: " + names(shuffled.subList(0, minority + 1));
            }
        }
        holdThenHeal(what);
    }

    private static String names(List<LabMember> members) {
        return String.join(", ", members.stream().map(LabMember::name).toList());
    }

    /** Records the partition {@code what}, keeps it for a while, then lifts every cut. */
    private void holdThenHeal(String what) {
        record("partition", what);
        try {
            hold();
        } finally {
            lab.heal();
            record("heal", "every cut lifted");
        }
    }

    /** The leader, or for servers that elect none a member drawn at random. */
    private LabMember leader() {
        List<? extends LabMember> members = cluster.members();
        return cluster.electsLeader() ? cluster.awaitLeader(RECOVERY) : members.get(random.nextInt(members.size()));
    }

    private void pause() {
        List<? extends LabMember> members = cluster.members();
        List<Client> attached = clients;
        if (!attached.isEmpty() && pauses % 3 == 0) {
            pauses++;
            pauseClient(attached.get(random.nextInt(attached.size())));
            return;
        }
        LabMember target = pauses++ % 2 == 0 ? leader() : members.get(random.nextInt(members.size()));
        target.pause();
        record("pause", target.name());
        try {
            hold();
        } finally {
            target.resume();
            record("resume", target.name());
        }
    }

    /** Freezes a client process whole (SIGSTOP of its JVM: a GC pause, every thread at once), then thaws it. */
    private void pauseClient(Client client) {
        signal(client, "STOP");
        record("pause", client.name() + " (a client process, frozen whole)");
        try {
            hold();
        } finally {
            signal(client, "CONT");
            record("resume", client.name());
        }
    }

    private static void signal(Client client, String signal) {
        if (!client.process().isAlive()) {
            return; // it finished its run
        }
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(client.process().pid())).start().waitFor();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot signal " + client.name(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void kill() {
        List<? extends LabMember> members = cluster.members();
        LabMember target = members.get(random.nextInt(members.size()));
        if (cluster.promotesReplicas() && target == cluster.awaitLeader(RECOVERY)) {
            failOver(target);
            return;
        }
        target.kill();
        record("kill", target.name());
        try {
            hold();
        } finally {
            target.start();
            record("start", target.name());
        }
        target.awaitHealthy(RECOVERY);
    }

    /**
     * The primary of a cluster that promotes replicas dies with commits its replicas never got: it
     * is cut from them for 0.2 to 1 s (it goes on committing), killed, and a replica is promoted in
     * its place before the cut heals (the dead primary's kernel still retransmits what its sockets
     * held); after the hold the old primary comes back as a replica of the new one.
     */
    private void failOver(LabMember primary) {
        List<? extends LabMember> replicas = cluster.members().stream().filter(m -> m != primary).toList();
        replicas.forEach(r -> lab.cut(primary.name(), r.name()));
        record("partition", "cut the primary " + primary.name() + " from its replicas: what it commits now is not"
                + " replicated");
        LabMember promoted;
        try {
            Thread.sleep(200 + random.nextInt(801));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            record("kill", primary.name() + " (the primary)");
            primary.kill();
        }
        try {
            // promoted while still cut off: a killed primary's sockets live on in the kernel, and what they
            // still hold would reach a replica that was not yet promoted once the cut heals
            promoted = cluster.promoteReplica(RECOVERY);
            record("promote", promoted.name() + " promoted to primary; the commits it missed are gone");
        } finally {
            lab.heal();
            record("heal", "every cut lifted");
        }
        try {
            hold();
        } finally {
            primary.start();
            record("start", primary.name() + " back as a replica of " + promoted.name());
        }
        primary.awaitHealthy(RECOVERY);
    }

    private void skew() {
        List<Client> attached = clients;
        if (!attached.isEmpty()) {
            slowClient(attached.get(random.nextInt(attached.size())));
            return;
        }
        List<LabMember> shuffled = new ArrayList<>(cluster.members());
        Collections.shuffle(shuffled, random);
        List<LabMember> majority = shuffled.subList(0, shuffled.size() / 2 + 1);
        majority.forEach(m -> m.skewClock(SKEW));
        record("skew", "the clocks of " + names(majority) + " " + SKEW.toSeconds() + " s ahead");
        try {
            hold();
        } finally {
            majority.forEach(m -> m.skewClock(Duration.ZERO));
            record("unskew", "every clock back");
        }
    }

    /**
     * Runs a client process's lock-provider clock at a quarter of its speed (a clock drifting slow, exaggerated:
     * its leases outlive their TTL in real time), then at full speed again.
     */
    private void slowClient(Client client) {
        writeRate(client, "0.25");
        record("skew", "the clock of " + client.name() + " runs at a quarter of its speed: its leases outlive their TTL");
        try {
            hold();
        } finally {
            writeRate(client, "1");
            record("unskew", "every clock back");
        }
    }

    private static void writeRate(Client client, String rate) {
        try {
            java.nio.file.Files.writeString(client.clockFile(), rate + "\n");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot write " + client.clockFile(), e);
        }
    }

    /** Kills every member, copies its data, starts them all again: the snapshot {@code restore} puts back. */
    private void takeSnapshot() {
        if (snapshot != null) {
            return;
        }
        List<? extends LabMember> members = cluster.members();
        members.forEach(LabMember::kill);
        try {
            snapshot = members.stream().map(LabMember::backUp).toList();
            snapshotAtMillis = (System.nanoTime() - startNanos) / 1_000_000;
            record("snapshot", "every member killed, its data copied, before the run");
        } finally {
            members.forEach(LabMember::start);
        }
        members.forEach(m -> m.awaitHealthy(RECOVERY));
    }

    private void restore() {
        List<? extends LabMember> members = cluster.members();
        List<Path> taken = java.util.Objects.requireNonNull(snapshot, "faults() took the snapshot");
        members.forEach(LabMember::kill);
        try {
            for (int i = 0; i < members.size(); i++) {
                members.get(i).restore(taken.get(i));
            }
            record("restore", "every member killed, its data replaced by the snapshot of " + snapshotAtMillis
                    + " ms: everything granted since is forgotten");
        } finally {
            record("restarting", "every member started again");
            members.forEach(LabMember::start);
        }
        members.forEach(m -> m.awaitHealthy(RECOVERY));
    }

    private void restoreMember() {
        List<? extends LabMember> members = cluster.members();
        List<Path> taken = java.util.Objects.requireNonNull(snapshot, "faults() took the snapshot");
        LabMember target = memberRestores++ % 2 == 0 ? leader() : members.get(random.nextInt(members.size()));
        target.kill();
        try {
            target.restore(taken.get(members.indexOf(target)));
            record("restore", target.name() + " killed, its data replaced by the snapshot of " + snapshotAtMillis
                    + " ms: it alone forgets what it granted since");
        } finally {
            record("restarting", target.name() + " started again");
            target.start();
        }
        target.awaitHealthy(RECOVERY);
    }

    /** Keeps a fault for 1 to 3 s; an interrupt (the run's end) shortens it, and the fault is undone. */
    private void hold() {
        try {
            Thread.sleep(1000 + random.nextInt(2001));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void record(String event, String target) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("atMillis", (System.nanoTime() - startNanos) / 1_000_000);
        entry.put("event", event);
        entry.put("target", target);
        events.add(entry);
    }
}
