package dev.fencing.cli.backends;

import dev.fencing.testkit.servers.EtcdClusterTestServer;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.NetworkLab;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The torture test's nemesis on a cluster whose members live in network namespaces of their own
 * ({@link NetworkLab}): each fault picks its target with a random generator seeded once per run,
 * so a seed replays the same choices; it holds the fault for a while, then undoes it. Every start
 * and end is recorded with its time for the report and the timeline.
 *
 * <ul>
 *   <li>{@code partition}: in turn, one member isolated from everyone; the leader cut from the
 *       other members while the clients still reach it; the clients cut from the leader.
 *   <li>{@code pause}: a member frozen (SIGSTOP), the leader every other time, then thawed.
 *   <li>{@code kill}: a member killed (SIGKILL), then started again from its data.
 * </ul>
 */
public final class Nemesis {

    /** The faults a nemesis knows, in the order {@code --nemesis} lists them. */
    public static final List<String> KINDS = List.of("partition", "pause", "kill");

    private static final Duration RECOVERY = Duration.ofSeconds(30);

    private final NetworkLab lab;
    private final EtcdClusterTestServer cluster;
    private final Random random;
    private final long seed;
    private final long startNanos = System.nanoTime();
    private final List<Map<String, Object>> events = Collections.synchronizedList(new ArrayList<>());
    private int partitions;
    private int pauses;

    Nemesis(NetworkLab lab, EtcdClusterTestServer cluster, long seed) {
        this.lab = lab;
        this.cluster = cluster;
        this.seed = seed;
        this.random = new Random(seed);
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
                        + " the clients from the leader; healed after 1 to 3 s", this::partition);
                case "pause" -> new Fault(name, "freeze a member (SIGSTOP; the leader every other time) for 1 to 3 s",
                        this::pause);
                case "kill" -> new Fault(name, "kill a member (SIGKILL), start it again from its data after 1 to 3 s",
                        this::kill);
                default -> throw new IllegalArgumentException("--nemesis: no fault '" + name + "'; known: "
                        + String.join(", ", KINDS));
            });
        }
        return faults;
    }

    private void partition() {
        EtcdTestServer leader = cluster.awaitLeader(RECOVERY);
        List<EtcdTestServer> members = cluster.members();
        String what;
        switch (partitions++ % 3) {
            case 0 -> {
                EtcdTestServer target = members.get(random.nextInt(members.size()));
                lab.isolate(target.name());
                what = "isolate " + target.name() + (target == leader ? " (the leader)" : "");
            }
            case 1 -> {
                members.stream().filter(m -> m != leader).forEach(m -> lab.cut(leader.name(), m.name()));
                what = "cut the leader " + leader.name() + " from the other members; the clients still reach it";
            }
            default -> {
                lab.cut(NetworkLab.HOST, leader.name());
                what = "cut the clients from the leader " + leader.name();
            }
        }
        record("partition", what);
        try {
            hold();
        } finally {
            lab.heal();
            record("heal", "every cut lifted");
        }
    }

    private void pause() {
        List<EtcdTestServer> members = cluster.members();
        EtcdTestServer target = pauses++ % 2 == 0 ? cluster.awaitLeader(RECOVERY)
                : members.get(random.nextInt(members.size()));
        target.pause();
        record("pause", target.name());
        try {
            hold();
        } finally {
            target.resume();
            record("resume", target.name());
        }
    }

    private void kill() {
        List<EtcdTestServer> members = cluster.members();
        EtcdTestServer target = members.get(random.nextInt(members.size()));
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
