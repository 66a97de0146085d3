package dev.fencing.cli.commands;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.cli.Json;
import dev.fencing.cli.backends.Backends;
import dev.fencing.cli.backends.ClusterAddresses;
import dev.fencing.cli.backends.Fault;
import dev.fencing.cli.backends.LockKind;
import dev.fencing.cli.backends.Nemesis;
import dev.fencing.core.FencedStore;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.history.CheckResult;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.HistoryRecorder;
import dev.fencing.testkit.history.LeaseOverlap;
import dev.fencing.testkit.history.LeaseOverlapChecker;
import dev.fencing.testkit.history.LeaseSpan;
import dev.fencing.testkit.history.Operation;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Many in-process workers increment counters through the fenced store while some of them pause
 * past their TTL (a simulated GC) and, on servers the CLI started itself, faults are injected.
 * It checks no token is granted twice for a resource (as grants happen) and, at the end: no lost
 * update (each counter equals its accepted increments), no token regression accepted (by counter
 * value, the tokens never go down), every refusal really stale — and runs the testkit's
 * {@link HistoryChecker} over every store call it recorded (written to a file with
 * {@code --history}).
 */
@Command(name = "torture", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Fenced workers under GC-like pauses and injected faults; checks every invariant.",
                "No token granted twice, no lost update, no accepted token regression, every refusal really stale:"
                        + " exit 0 only if all held."})
public final class TortureCommand extends FencingCommand {

    /** Runs up to this long keep their history in memory and check it even without {@code --history}. */
    private static final Duration HISTORY_IN_MEMORY_LIMIT = Duration.ofMinutes(10);

    @Mixin
    LockStoreOptions kinds;

    @Option(names = "--workers", paramLabel = "W", defaultValue = "8", description = "Worker threads, 1 to 64 (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--duration", paramLabel = "D", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long to run, 100ms to 24h (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--resources", paramLabel = "N", defaultValue = "2", description = "Counters the workers share, 1 to 1000 (default: ${DEFAULT-VALUE}).")
    int resources;

    @Option(names = "--ttl", paramLabel = "D", defaultValue = "200ms", converter = DurationConverter.class,
            description = "Lease TTL, 1ms to 7d, whole milliseconds; a paused worker sleeps 1.5 times this"
                    + " (default: ${DEFAULT-VALUE}).")
    Duration ttl;

    @Option(names = "--pause-probability", paramLabel = "P", defaultValue = "0.1",
            description = "Chance that a worker pauses past its TTL inside the critical section, 0 to 1; above 0 the"
                    + " first worker's first operation always pauses, so every run has a zombie (default: ${DEFAULT-VALUE}).")
    double pauseProbability;

    @Option(names = "--work", paramLabel = "D", defaultValue = "0ms", converter = DurationConverter.class,
            description = "How long a worker that does not pause works inside the critical section before its write,"
                    + " 0 to the TTL (default: ${DEFAULT-VALUE}): the lease rule sees a lease lost meanwhile.")
    Duration work;

    @Option(names = "--faults", paramLabel = "F", split = ",", defaultValue = "all",
            description = "Faults to inject into servers the CLI started: all, none, or names (restart-lock-server and restore-lock-snapshot for redis,"
                    + " terminate-lock-backends for postgres, restart-redlock-node for redlock, restart-etcd-leader for"
                    + " etcd (then on an embedded 3-member cluster), expire-zookeeper-session for zookeeper)"
                    + " (default: ${DEFAULT-VALUE}).")
    List<String> faultNames;

    @Option(names = "--history", paramLabel = "FILE",
            description = "Also write every store call (times, tokens, outcomes) to FILE, for `fencing check-history`."
                    + " The history checker runs on it either way; without --history only for runs up to 10 minutes.")
    Path historyFile;

    @Option(names = "--fault-interval", paramLabel = "D", converter = DurationConverter.class,
            description = "Time between injected faults, 50ms to 24h (default: a quarter of --duration).")
    Duration faultInterval;

    @Option(names = "--timeline", paramLabel = "FILE",
            description = "Also write the run as one self-contained HTML page: per worker its grants and store calls"
                    + " (accepted, refused, unknown), the faults held per server, anomalies outlined in red.")
    Path timelineFile;

    @Option(names = "--cluster", paramLabel = "KIND:N",
            description = "Run the lock on a cluster of N real servers, each in a Linux network namespace of its own, and"
                    + " inject the --nemesis faults into it (needs root, ip and iptables): etcd, zookeeper, redlock"
                    + " (independent Redis masters) or sentinel (the redis lock on a primary, 2 replicas and N Sentinels),"
                    + " with 3, 5 or 7 members (etcd:3, zookeeper:5, redlock:5, sentinel:3); postgres:2 (the postgres"
                    + " lock on a primary and its streaming replica, promoted when the primary dies). Sets --lock;"
                    + " --faults does not apply.")
    String cluster;

    @Option(names = "--nemesis", paramLabel = "F", split = ",", defaultValue = "partition,pause,kill",
            description = "With --cluster, the faults injected in turn every --fault-interval: partition (a member"
                    + " isolated; the leader cut from the others; the clients cut from the leader; a follower cut from"
                    + " the others, the clients still reaching it; a bridge: two halves apart, one member reaching both), pause (SIGSTOP), kill (SIGKILL and restart), each"
                    + " held 1 to 3 s; restore (every member killed, their data replaced by a snapshot taken before the run, all"
                    + " started again); restore-member (one member alone, the leader every other time); skew (Redis"
                    + " masters' clocks 30 s ahead, or with --client-processes a client's clock at a quarter of its speed) (default:"
                    + " ${DEFAULT-VALUE}).")
    List<String> nemesisNames;

    @Option(names = "--client-processes", paramLabel = "P", defaultValue = "0",
            description = "With --cluster, run the workers in P client processes (1 to 8; JVMs of this CLI, --workers"
                    + " threads each), each in a network namespace of its own, so the nemesis can cut one client from"
                    + " the leader while the others still reach it and freeze a client whole; the store then runs on"
                    + " a redis-server in the lab (default: ${DEFAULT-VALUE}, threads of this process).")
    int clientProcesses;

    /** Set by a parent run: this process is one of its clients, writing what it saw into this folder. */
    @Option(names = "--client-of", hidden = true)
    Path clientOf;

    @Option(names = "--client-id", hidden = true, defaultValue = "0")
    int clientId;

    /** Set by a parent run: the counters' names, so that every client increments the same ones. */
    @Option(names = "--keys-prefix", hidden = true)
    String keysPrefix;

    @Option(names = "--seed", paramLabel = "N",
            description = "With --cluster, the seed of the nemesis's choices (default: a random one, printed in the summary).")
    Long seed;

    @Option(names = "--leadership",
            description = "Torture leader election instead: --workers candidates campaign for one name and write their"
                    + " epoch while leading; leaders are made zombies or hand over at --pause-probability. Checks one"
                    + " leader per epoch, increasing epochs, no two beliefs at once, and the store's history.")
    boolean leadership;

    /** Every token granted so far, per resource: a token granted twice is a violation. */
    private final Map<String, java.util.Set<Long>> grantedTokens = new ConcurrentHashMap<>();

    @Override
    public Integer call() throws InterruptedException {
        validate();
        LeaseOptions options = WorkerCommand.leaseOptions(ttl, Duration.ofSeconds(2));
        PrintWriter out = out();
        try (Backends backends = clientOf != null ? openAsClient()
                : cluster == null ? Backends.openForTorture(kinds.lock, kinds.store, connections, faultNames)
                : Backends.openOnCluster(kinds.lock, kinds.store, connections, clusterMembers(), nemesisNames, seed,
                        clientProcesses > 0)) {
            List<Fault> faults = clientOf != null ? List.of() : chooseFaults(backends.faults());
            HistoryRecorder history = historyFile != null || timelineFile != null || clientOf != null
                    || duration.compareTo(HISTORY_IN_MEMORY_LIMIT) <= 0 ? new HistoryRecorder() : null;
            FencedStore plainStore = backends.store(Policy.MONOTONIC);
            FencedStore store = history == null ? plainStore : history.recording(0, plainStore, true);
            String runId = keysPrefix != null ? keysPrefix
                    : Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
            if (leadership) {
                return tortureLeadership(backends, store, history, faults, "torture-leader-" + runId, out);
            }
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < resources; i++) {
                keys.add("torture-" + runId + "-" + i);
            }
            Map<String, ConcurrentLinkedQueue<long[]>> acceptedWrites = new ConcurrentHashMap<>();
            keys.forEach(k -> acceptedWrites.put(k, new ConcurrentLinkedQueue<>()));
            Outcomes outcomes = new Outcomes();
            AtomicLong pauses = new AtomicLong();
            AtomicLong injected = new AtomicLong();
            ClientProcesses clients = clientProcesses == 0 ? null : ClientProcesses.launch(
                    backends.nemesis().orElseThrow().lab(), clientProcesses, clientArguments(backends, runId),
                    Duration.ofSeconds(120));
            if (clients != null) {
                backends.nemesis().orElseThrow().attachClients(clients.clients());
                backends.closeLater(clients);
            }
            if (clientOf != null) {
                writeReady();
            }
            long deadline = System.nanoTime() + duration.toNanos();

            List<Thread> threads = new ArrayList<>();
            for (int w = 0; clients == null && w < workers; w++) {
                boolean pauseFirst = w == 0 && pauseProbability > 0;
                Thread worker = new Thread(() -> work(backends, store, keys, options, deadline, acceptedWrites, outcomes,
                        pauses, pauseFirst, history), "torture-worker-" + w);
                worker.start();
                threads.add(worker);
            }
            Thread faulter = new Thread(() -> FaultInjector.run(faults, faultInterval, deadline, injected), "torture-faults");
            faulter.setDaemon(true);
            faulter.start();
            boolean progress = !json && clientOf == null && System.console() != null;
            while (threads.stream().anyMatch(Thread::isAlive) || (clients != null && clients.anyAlive()
                    && System.nanoTime() - deadline < 0)) {
                for (Thread thread : threads) {
                    thread.join(500);
                }
                if (clients != null) {
                    Thread.sleep(200);
                }
                if (progress) {
                    err().printf("\r  %d accepted, %d stale-rejected, %d failed, %d pauses, %d faults ",
                            outcomes.accepted(), outcomes.rejectedStale(), outcomes.failedCount(), pauses.get(), injected.get());
                    err().flush();
                }
            }
            faulter.interrupt();
            faulter.join();
            if (progress) {
                err().println();
            }
            if (clientOf != null) {
                writeClientRecord(history, store.policy(), acceptedWrites, outcomes, pauses.get());
                return ExitCode.OK; // the parent run checks what every client saw
            }
            List<Operation> clientOperations = clients == null ? List.of()
                    : mergeClients(clients.outputs(Duration.ofMinutes(2)), history, acceptedWrites, outcomes, pauses);
            RuntimeException fatal = null;
            try {
                // recorded as the final reads (the timeline's lane of their own), not as one more worker
                checkInvariants(history == null ? store : history.recordingFinalReads(0, plainStore), acceptedWrites,
                        outcomes);
            } catch (RuntimeException e) { // the final reads failed: the summary still comes first
                fatal = e;
                outcomes.fatal(e);
            }
            checkLeases(backends, outcomes);
            CheckResult checked = history == null ? null
                    : checkHistory(history, clientOperations, store.policy(), outcomes);
            if (timelineFile != null && checked != null) {
                writeTimeline(backends, history, checked, outcomes);
            }
            report(out, backends, faults, outcomes, pauses.get(), injected.get(), checked);
            if (fatal != null) {
                throw fatal;
            }
            return outcomes.violations().isEmpty() ? ExitCode.OK : ExitCode.INVARIANT_VIOLATED;
        }
    }

    private int tortureLeadership(Backends backends, FencedStore store, HistoryRecorder history, List<Fault> faults,
            String name, PrintWriter out) throws InterruptedException {
        LeadershipTorture run = new LeadershipTorture(backends.locks(), store, name, ttl, pauseProbability);
        AtomicLong injected = new AtomicLong();
        run.run(workers, System.nanoTime() + duration.toNanos(), faults, faultInterval, injected);
        Outcomes outcomes = new Outcomes();
        LeadershipHistory terms = run.history();
        terms.epochViolations().forEach(outcomes::violation);
        List<String> overlaps = terms.overlaps();
        if (injected.get() == 0) {
            overlaps.forEach(outcomes::violation); // with no fault, the lock server kept its grants
        }
        CheckResult checked = history == null ? null : checkHistory(history, store.policy(), outcomes);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("mode", "leadership");
        report.put("lock", backends.lockDescription());
        report.put("store", backends.storeDescription());
        report.put("candidates", workers);
        report.put("durationMillis", duration.toMillis());
        report.put("ttlMillis", ttl.toMillis());
        report.put("faults", faults.stream().map(Fault::name).toList());
        report.put("faultsInjected", injected.get());
        report.put("terms", terms.terms().size());
        report.put("epochs", terms.terms().stream().map(LeadershipHistory.Sighted::epoch).toList());
        report.put("handOvers", run.handOvers.get());
        report.put("writesAccepted", run.writesAccepted.get());
        report.put("writesRefused", run.writesRefused.get());
        report.put("writesFailed", run.writesFailed.get());
        report.put("zombieWritesRefused", run.zombieWritesRefused.get());
        report.put("zombieWritesAccepted", run.zombieWritesAccepted.get());
        report.put("beliefOverlapsUnderFaults", injected.get() == 0 ? 0 : overlaps.size());
        if (checked != null) {
            report.put("historyOperations", checked.history().operations().size());
            report.put("historyViolations", checked.violations().size());
        }
        report.put("violations", outcomes.violations());
        report.put("ok", outcomes.violations().isEmpty());
        if (json) {
            Json.print(out, report);
        } else {
            out.println("torture --leadership: " + workers + " candidates for " + duration.toMillis() + " ms, TTL "
                    + ttl.toMillis() + " ms, on " + backends.lockDescription());
            List<LeadershipHistory.Sighted> sighted = terms.terms();
            out.println("  " + sighted.size() + " terms" + (sighted.isEmpty() ? "" : ", epochs " + sighted.get(0).epoch()
                    + " to " + sighted.get(sighted.size() - 1).epoch()));
            out.println("  " + run.handOvers.get() + " hand-overs; writes: " + run.writesAccepted.get() + " accepted, "
                    + run.writesRefused.get() + " refused, " + run.writesFailed.get() + " failed; zombie writes: "
                    + run.zombieWritesRefused.get() + " refused, " + run.zombieWritesAccepted.get()
                    + " accepted (no newer epoch had written)");
            out.println("  faults: " + (faults.isEmpty() ? "none" : injected.get() + " injected; beliefs overlapping"
                    + " under them: " + overlaps.size()));
            if (outcomes.violations().isEmpty()) {
                out.println("  invariants held: one leader per epoch, increasing epochs, no two beliefs at once"
                        + (injected.get() == 0 ? "" : " (overlaps, and an older term outliving a newer one's start by"
                                + " less than a TTL, counted, not judged, once a fault was injected)")
                        + ", the store's history consistent");
            } else {
                outcomes.violations().forEach(v -> out.println("  INVARIANT VIOLATED: " + v));
            }
            out.flush();
        }
        return outcomes.violations().isEmpty() ? ExitCode.OK : ExitCode.INVARIANT_VIOLATED;
    }

    /**
     * Checks the recorded history with the testkit's {@link HistoryChecker} (the same code that
     * {@code check-history} runs on the file) and counts each violation as an invariant violated.
     */
    private CheckResult checkHistory(HistoryRecorder recorder, Policy policy, Outcomes outcomes) {
        return checkHistory(recorder, List.of(), policy, outcomes);
    }

    /** As {@link #checkHistory(HistoryRecorder, Policy, Outcomes)}, with the client processes' operations besides. */
    private CheckResult checkHistory(HistoryRecorder recorder, List<Operation> clientOperations, Policy policy,
            Outcomes outcomes) {
        History recorded = recorder.history(policy, 0);
        History history = recorded;
        if (!clientOperations.isEmpty()) {
            List<Operation> all = new ArrayList<>(recorded.operations());
            all.addAll(clientOperations);
            all.sort(Comparator.comparingLong(Operation::invokedNanos));
            history = new History(policy, 0, all);
        }
        if (historyFile != null) {
            history.writeTo(historyFile);
        }
        CheckResult result = HistoryChecker.check(history);
        result.violations().forEach(v -> outcomes.violation("history: " + v));
        return result;
    }

    /** Increments each client process had accepted, for the report. */
    private final Map<String, Long> acceptedByClient = new java.util.TreeMap<>();

    /** Client processes' writers are numbered from {@code id × this}, so that their lanes never meet. */
    static final int WRITERS_PER_CLIENT = 100;

    /** What a client process needs besides its id: the lock's and store's addresses, the counters, the run's parameters. */
    private List<String> clientArguments(Backends backends, String runId) {
        Nemesis nemesis = backends.nemesis().orElseThrow();
        List<String> arguments = new ArrayList<>(List.of("--keys-prefix", runId, "--workers", Integer.toString(workers),
                "--resources", Integer.toString(resources), "--duration", duration.toMillis() + "ms", "--ttl",
                ttl.toMillis() + "ms", "--pause-probability", Double.toString(pauseProbability), "--work",
                work.toMillis() + "ms", "--timeout", connections.timeout().toMillis() + "ms"));
        arguments.addAll(ClusterAddresses.lockOptions(nemesis.cluster()));
        arguments.addAll(ClusterAddresses.storeOptions(nemesis.lab()));
        return arguments;
    }

    /**
     * A client process's lock and store, tried again for up to {@link #CLIENT_OPEN_PATIENCE} while
     * they are unreachable: a JVM just started on a busy machine can spend the whole per-call
     * {@code --timeout} loading the classes of its first connection (seen on CI: etcd, 5 s), and the
     * parent waits for every client to be ready before its nemesis starts.
     */
    private Backends openAsClient() throws InterruptedException {
        long deadline = System.nanoTime() + CLIENT_OPEN_PATIENCE.toNanos();
        while (true) {
            try {
                return Backends.openForTorture(kinds.lock, kinds.store, connections, List.of("none"));
            } catch (CliException e) {
                if (e.exitCode() != ExitCode.UNREACHABLE || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                err().println("fencing torture (client " + clientId + "): " + e.getMessage() + "; trying again");
                err().flush();
                Thread.sleep(500);
            }
        }
    }

    /** How long a client process keeps trying to open its lock and store; the parent waits 120 s for it. */
    private static final Duration CLIENT_OPEN_PATIENCE = Duration.ofSeconds(90);

    /** A client process says its lock and store are open: the parent starts its nemesis once every client has. */
    private void writeReady() {
        try {
            Files.writeString(ClientProcesses.readyFile(clientOf, clientId), "");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + clientOf, e);
        }
    }

    /** A client process's record of its run, for the parent: counts, grants, lease spans, accepted writes, history. */
    private void writeClientRecord(HistoryRecorder history, Policy policy,
            Map<String, ConcurrentLinkedQueue<long[]>> acceptedWrites, Outcomes outcomes, long pauses) {
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("startNanos", history.startNanos());
        record.put("pauses", pauses);
        record.put("outcomes", outcomes.toMap());
        record.put("grants", grants.stream().map(g -> List.of(g.atNanos(), g.writer(), g.key(), g.token())).toList());
        record.put("spans", leaseSpans.stream().map(span -> List.of(span.holder(), span.lock(), span.token(),
                span.grantedNanos(), span.lastValidNanos())).toList());
        Map<String, List<long[]>> accepted = new LinkedHashMap<>();
        acceptedWrites.forEach((key, writes) -> accepted.put(key, List.copyOf(writes)));
        record.put("accepted", accepted);
        try {
            history.history(policy, 0).writeTo(clientOf.resolve("client-" + clientId + ".history"));
            Path file = clientOf.resolve("client-" + clientId + ".json");
            Path partial = clientOf.resolve("client-" + clientId + ".json.partial");
            new com.fasterxml.jackson.databind.ObjectMapper().writeValue(partial.toFile(), record);
            Files.move(partial, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the client's record into " + clientOf, e);
        }
    }

    /**
     * Merges what the client processes saw into this run's checks: counts, grants (a token granted
     * twice across clients is a violation), lease spans, accepted writes; returns their store calls,
     * on this process's clock ({@link System#nanoTime()} is the machine's monotonic clock, the same in
     * every process), each client a process of its own in the history.
     */
    private List<Operation> mergeClients(List<ClientProcesses.Output> outputs, HistoryRecorder history,
            Map<String, ConcurrentLinkedQueue<long[]>> acceptedWrites, Outcomes outcomes, AtomicLong pauses) {
        List<Operation> operations = new ArrayList<>();
        for (ClientProcesses.Output output : outputs) {
            com.fasterxml.jackson.databind.JsonNode record = output.record();
            String client = "client" + output.id();
            long shift = record.get("startNanos").asLong() - history.startNanos();
            int offset = output.id() * WRITERS_PER_CLIENT;
            outcomes.absorb(record.get("outcomes"), client + ": ");
            acceptedByClient.put(client, record.get("outcomes").path("accepted").asLong());
            pauses.addAndGet(record.get("pauses").asLong());
            for (com.fasterxml.jackson.databind.JsonNode grant : record.get("grants")) {
                String key = grant.get(2).asText();
                long token = grant.get(3).asLong();
                if (!grantedTokens.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(token)) {
                    outcomes.violation("token " + token + " granted twice on '" + key + "' (" + client + " among them)");
                }
                grants.add(new TimelinePage.Grant(grant.get(0).asLong() + shift, grant.get(1).asInt() + offset, key, token));
            }
            for (com.fasterxml.jackson.databind.JsonNode span : record.get("spans")) {
                leaseSpans.add(new LeaseSpan(client + "/" + span.get(0).asText(), span.get(1).asText(), span.get(2).asLong(),
                        span.get(3).asLong(), span.get(4).asLong()));
            }
            record.get("accepted").properties().forEach(entry -> entry.getValue().forEach(write -> acceptedWrites
                    .computeIfAbsent(entry.getKey(), k -> new ConcurrentLinkedQueue<>())
                    .add(new long[] {write.get(0).asLong(), write.get(1).asLong()})));
            for (Operation op : History.readFrom(output.history()).operations()) {
                operations.add(new Operation(output.id(), op.writer() + offset, op.key(), op.kind(), op.token(), op.value(),
                        op.outcome(), op.observed(), op.observedToken(), op.invokedNanos() + shift,
                        op.completedNanos() + shift, op.error()));
            }
        }
        return operations;
    }

    private void validate() {
        if (workers < 1 || workers > 64) {
            throw new CliException(ExitCode.USAGE, "--workers must be between 1 and 64, got " + workers);
        }
        if (resources < 1 || resources > 1000) {
            throw new CliException(ExitCode.USAGE, "--resources must be between 1 and 1000, got " + resources);
        }
        if (pauseProbability < 0 || pauseProbability > 1 || Double.isNaN(pauseProbability)) {
            throw new CliException(ExitCode.USAGE, "--pause-probability must be between 0 and 1, got " + pauseProbability);
        }
        DurationConverter.requireBetween("--duration", duration, Duration.ofMillis(100), Duration.ofHours(24));
        DurationConverter.requireBetween("--work", work, Duration.ZERO, ttl);
        if (faultInterval == null) {
            faultInterval = duration.dividedBy(4);
        }
        DurationConverter.requireBetween("--fault-interval", faultInterval, Duration.ofMillis(50), Duration.ofHours(24));
        if (cluster != null) {
            validateCluster();
        }
        if (clientProcesses != 0) {
            if (clientProcesses < 0 || clientProcesses > 8) {
                throw new CliException(ExitCode.USAGE, "--client-processes must be between 1 and 8, got " + clientProcesses);
            }
            if (cluster == null || leadership || clientOf != null) {
                throw new CliException(ExitCode.USAGE, "--client-processes puts the workers in namespaces of their own"
                        + " beside a --cluster's members: it needs --cluster, and does not go with --leadership");
            }
        }
        if (clientOf != null && (cluster != null || keysPrefix == null || clientId < 1)) {
            throw new CliException(ExitCode.USAGE, "--client-of is for the client processes a --client-processes run"
                    + " starts, with --client-id and --keys-prefix and without --cluster");
        }
    }

    /** {@code --cluster etcd:N}: the lock becomes etcd, the faults the nemesis's. */
    private void validateCluster() {
        java.util.regex.Matcher spec = java.util.regex.Pattern.compile("([a-z-]+):(\\d{1,2})").matcher(cluster);
        if (!spec.matches()) {
            throw new CliException(ExitCode.USAGE, "--cluster takes KIND:N, for example etcd:3; got '" + cluster + "'");
        }
        LockKind clustered = switch (spec.group(1)) {
            case "etcd" -> LockKind.ETCD;
            case "zookeeper" -> LockKind.ZOOKEEPER;
            case "redlock" -> LockKind.REDLOCK;
            case "sentinel" -> LockKind.REDIS;
            case "postgres" -> LockKind.POSTGRES;
            default -> throw new CliException(ExitCode.USAGE, "--cluster: '" + spec.group(1) + "' clusters in network"
                    + " namespaces are not built yet; etcd, zookeeper, redlock, sentinel and postgres are (etcd:3,"
                    + " zookeeper:3, redlock:5, sentinel:3; 3, 5 or 7 members — for sentinel, the Sentinels beside a"
                    + " primary and 2 replicas; postgres:2, a primary and its streaming replica)");
        };
        int members = Integer.parseInt(spec.group(2));
        if (clustered == LockKind.POSTGRES && members != 2) {
            throw new CliException(ExitCode.USAGE, "--cluster postgres:N takes 2 (a primary and its streaming replica);"
                    + " got " + members);
        }
        if (clustered != LockKind.POSTGRES && members != 3 && members != 5 && members != 7) {
            throw new CliException(ExitCode.USAGE, "--cluster " + spec.group(1) + ":N takes 3, 5 or 7 members (a majority"
                    + " survives one member cut off); got " + members);
        }
        if (kinds.lock != LockKind.REDIS && kinds.lock != clustered) {
            throw new CliException(ExitCode.USAGE, "--cluster " + cluster + " runs the " + spec.group(1) + " lock; it"
                    + " cannot go with --lock " + kinds.lock.name().toLowerCase(java.util.Locale.ROOT));
        }
        kinds.lock = clustered;
        if (!faultNames.equals(List.of("all"))) {
            throw new CliException(ExitCode.USAGE, "--faults does not apply with --cluster: the cluster's faults are"
                    + " --nemesis (" + String.join(",", Nemesis.KINDS) + ")");
        }
        for (String name : nemesisNames) {
            if (!Nemesis.KINDS.contains(name)) {
                throw new CliException(ExitCode.USAGE, "--nemesis: no fault '" + name + "'; known: "
                        + String.join(", ", Nemesis.KINDS));
            }
        }
        if (seed == null) {
            seed = ThreadLocalRandom.current().nextLong();
        }
    }

    private int clusterMembers() {
        return Integer.parseInt(cluster.substring(cluster.indexOf(':') + 1));
    }

    private List<Fault> chooseFaults(List<Fault> available) {
        if (faultNames.equals(List.of("none"))) {
            return List.of();
        }
        if (faultNames.equals(List.of("all"))) {
            return available;
        }
        List<Fault> chosen = new ArrayList<>();
        for (String name : faultNames) {
            chosen.add(available.stream().filter(f -> f.name().equals(name)).findFirst()
                    .orElseThrow(() -> new CliException(ExitCode.USAGE, "--faults: '" + name + "' is not available here;"
                            + " available: " + (available.isEmpty() ? "none (faults need servers the CLI started itself)"
                                    : String.join(", ", available.stream().map(Fault::name).toList())))));
        }
        return chosen;
    }

    /** The grants the workers received, for {@code --timeline}. */
    private final ConcurrentLinkedQueue<TimelinePage.Grant> grants = new ConcurrentLinkedQueue<>();

    /** Every granted lease: when granted, when last seen valid (just before its write). */
    private final ConcurrentLinkedQueue<LeaseSpan> leaseSpans = new ConcurrentLinkedQueue<>();

    /** The lease overlaps found; with --cluster, each is a violation. */
    private List<LeaseOverlap> leaseOverlaps = List.of();

    /**
     * Whether an overlap is a violation: on a cluster whose provider claims exclusive leases under
     * the nemesis's faults (etcd, ZooKeeper; Redlock as long as the clocks hold). Redis with Sentinels
     * and PostgreSQL do not claim it: a failover (and a PostgreSQL restart) loses every granted lock
     * while the holders' leases run on to their TTL, which is what the fenced store is for; there,
     * as without --cluster, overlaps are counted only.
     */
    private boolean leaseRuleBinds() {
        return cluster != null && kinds.lock != LockKind.REDIS && kinds.lock != LockKind.POSTGRES;
    }

    /**
     * The lease rule ({@link LeaseOverlapChecker}, bound zero): two leases valid at once are a
     * violation where {@link #leaseRuleBinds()}. Elsewhere they are only counted: faults such as an
     * emptied or restored lock server make the server forget a lease its holder still believes in.
     */
    private void checkLeases(Backends backends, Outcomes outcomes) {
        leaseOverlaps = LeaseOverlapChecker.check(List.copyOf(leaseSpans), Duration.ZERO);
        backends.nemesis().filter(n -> leaseRuleBinds()).ifPresent(nemesis -> leaseOverlaps.forEach(overlap -> outcomes.violation(
                "two valid leases at once: " + overlap + " (into the nemesis's run: the older granted at "
                        + (overlap.older().grantedNanos() - nemesis.startNanos()) / 1_000_000 + " ms, told valid at "
                        + (overlap.older().lastValidNanos() - nemesis.startNanos()) / 1_000_000 + " ms; the newer granted"
                        + " at " + (overlap.newer().grantedNanos() - nemesis.startNanos()) / 1_000_000 + " ms)")));
    }

    private void writeTimeline(Backends backends, HistoryRecorder history, CheckResult checked, Outcomes outcomes) {
        List<TimelinePage.Fault> held = backends.nemesis()
                .map(n -> TimelinePage.faultsFrom(n.events(), n.startNanos(), history.startNanos()))
                .orElse(List.of());
        String title = "fencing torture: " + workers + " workers on " + backends.lockDescription()
                + backends.nemesis().map(n -> ", cluster " + cluster + ", seed " + n.seed()).orElse("");
        String verdict = outcomes.violations().isEmpty() ? "invariants held; " + checked.summary()
                : "INVARIANTS VIOLATED: " + String.join("; ", outcomes.violations());
        List<TimelinePage.Overlap> overlaps = leaseOverlaps.stream().map(o -> new TimelinePage.Overlap(o.toString(),
                Math.max(0, o.newer().grantedNanos() - history.startNanos()),
                Math.max(0, o.older().lastValidNanos() - history.startNanos()))).toList();
        TimelinePage.write(timelineFile, title, checked, List.copyOf(grants), held, overlaps, verdict);
    }

    private void work(Backends backends, FencedStore store, List<String> keys, LeaseOptions options, long deadline,
            Map<String, ConcurrentLinkedQueue<long[]>> acceptedWrites, Outcomes outcomes, AtomicLong pauses,
            boolean pauseFirst, HistoryRecorder history) {
        // the grants' side of the token invariant (faults such as restore-lock-snapshot bring old counters back)
        ThreadLocalRandom random = ThreadLocalRandom.current();
        boolean first = true;
        while (System.nanoTime() < deadline) {
            String key = keys.get(random.nextInt(keys.size()));
            Duration pause = work;
            boolean pauseNow = (first && pauseFirst) || random.nextDouble() < pauseProbability;
            first = false;
            if (pauseNow) {
                pauses.incrementAndGet();
                pause = ttl.multipliedBy(3).dividedBy(2); // the simulated GC pause: the lease expires meanwhile
            }
            try {
                StoredValue written = FencedIncrement.run(backends.locks(), store, key, options, pause, outcomes, token -> {
                    if ((timelineFile != null || clientOf != null) && history != null) {
                        grants.add(new TimelinePage.Grant(System.nanoTime() - history.startNanos(),
                                history.writerOf(Thread.currentThread()), key, token));
                    }
                    if (!grantedTokens.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(token)) {
                        outcomes.violation("token " + token + " granted twice on '" + key + "'");
                    }
                }, leaseSpans::add);
                if (written != null) {
                    acceptedWrites.get(key).add(new long[] {Long.parseLong(written.value()), written.token()});
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) { // an error no increment expects: counted, and the run goes on
                outcomes.failed(e);
                try {
                    Thread.sleep(FencedIncrement.UNREACHABLE_PAUSE_MILLIS); // a lasting error is not a busy loop
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    private static void checkInvariants(FencedStore store, Map<String, ConcurrentLinkedQueue<long[]>> acceptedWrites,
            Outcomes outcomes) {
        acceptedWrites.forEach((key, writes) -> {
            List<long[]> byValue = new ArrayList<>(writes);
            byValue.sort(Comparator.comparingLong(w -> w[0]));
            long stored = store.read(key).map(v -> Long.parseLong(v.value())).orElse(0L);
            if (stored != byValue.size()) {
                outcomes.violation("lost update on '" + key + "': the counter is " + stored + " after " + byValue.size()
                        + " accepted increments");
            }
            for (int i = 0; i < byValue.size(); i++) {
                if (byValue.get(i)[0] != i + 1) {
                    outcomes.violation("on '" + key + "' accepted increment #" + (i + 1) + " wrote " + byValue.get(i)[0]);
                    break;
                }
                if (i > 0 && byValue.get(i)[1] < byValue.get(i - 1)[1]) {
                    outcomes.violation("token regression accepted on '" + key + "': value " + byValue.get(i)[0]
                            + " written with token " + byValue.get(i)[1] + " after token " + byValue.get(i - 1)[1]);
                    break;
                }
            }
        });
    }

    private void report(PrintWriter out, Backends backends, List<Fault> faults, Outcomes outcomes, long pauses, long injected,
            CheckResult checked) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("lock", backends.lockDescription());
        report.put("store", backends.storeDescription());
        report.put("workers", workers);
        report.put("resources", resources);
        report.put("durationMillis", duration.toMillis());
        report.put("ttlMillis", ttl.toMillis());
        report.put("pauseProbability", pauseProbability);
        report.put("faults", faults.stream().map(Fault::name).toList());
        report.put("faultsInjected", injected);
        backends.nemesis().ifPresent(nemesis -> {
            report.put("cluster", cluster);
            report.put("seed", nemesis.seed());
            report.put("nemesisEvents", nemesis.events());
        });
        if (clientProcesses > 0) {
            report.put("clientProcesses", clientProcesses);
            report.put("acceptedByClient", acceptedByClient);
        }
        report.put("pauses", pauses);
        report.put("leasesChecked", leaseSpans.size());
        report.put("leaseOverlaps", leaseOverlaps.size());
        Map<String, Object> counts = outcomes.toMap();
        long operations = outcomes.accepted() + outcomes.rejectedStale() + outcomes.failedCount();
        report.put("operations", operations);
        report.putAll(counts);
        if (checked != null) {
            report.put("historyOperations", checked.history().operations().size());
            report.put("historyViolations", checked.violations().size());
            if (historyFile != null) {
                report.put("historyFile", historyFile.toString());
            }
            if (timelineFile != null) {
                report.put("timelineFile", timelineFile.toString());
            }
        }
        report.put("ok", outcomes.violations().isEmpty());
        if (json) {
            Json.print(out, report);
            return;
        }
        out.println("torture: " + workers + " workers on " + resources + " counters for " + duration.toMillis() + " ms, TTL "
                + ttl.toMillis() + " ms, pause probability " + pauseProbability);
        out.println("  lock:   " + backends.lockDescription());
        if (clientProcesses > 0) {
            out.println("  clients: " + clientProcesses + " processes of " + workers + " workers each, each process in a"
                    + " network namespace of its own (client1 to client" + clientProcesses + ")");
        }
        out.println("  store:  " + backends.storeDescription());
        out.println("  faults: " + (faults.isEmpty() ? "none" : injected + " injected ("
                + String.join(", ", faults.stream().map(Fault::name).toList()) + ")"));
        backends.nemesis().ifPresent(nemesis -> {
            out.println("  cluster " + cluster + ", nemesis seed " + nemesis.seed() + " (--seed " + nemesis.seed()
                    + " replays its choices):");
            nemesis.events().forEach(e -> out.printf("    %6d ms  %-9s %s%n", e.get("atMillis"), e.get("event"), e.get("target")));
        });
        out.printf("  %d operations: %d accepted, %d rejected as stale, %d failed; %d pauses past the TTL, %d leases"
                        + " lost%n", operations, outcomes.accepted(), outcomes.rejectedStale(), outcomes.failedCount(),
                pauses, counts.get("leasesLost"));
        if (outcomes.failedCount() > 0) {
            out.println("  failures by cause: " + counts.get("failures"));
        }
        out.println("  leases: " + leaseSpans.size() + " checked, " + (leaseOverlaps.isEmpty() ? "none valid at once"
                : leaseOverlaps.size() + " valid at once with another" + (leaseRuleBinds() ? ""
                        : " (counted, not a violation: these faults make the lock server forget leases)")));
        if (checked != null) {
            out.println("  history: " + checked.history().operations().size() + " store calls checked, "
                    + (checked.passed() ? "no violation" : checked.violations().size() + " violation(s)")
                    + (historyFile == null ? "" : "; written to " + historyFile)
                    + (timelineFile == null ? "" : "; timeline in " + timelineFile));
        }
        if (outcomes.violations().isEmpty()) {
            out.println("  invariants held: no token granted twice, no lost update, no accepted token regression,"
                    + " every refusal really stale");
        } else {
            outcomes.violations().forEach(v -> out.println("  INVARIANT VIOLATED: " + v));
        }
        out.flush();
    }
}
