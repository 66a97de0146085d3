package dev.fencing.cli.commands;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.cli.Json;
import dev.fencing.cli.backends.Backends;
import dev.fencing.cli.backends.LockKind;

import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One leadership candidate: campaigns for a name on the lock's server and prints each term it
 * holds — elected with its epoch, revoked with the reason — until Ctrl-C or {@code --for}; then
 * stops, releasing the lock so that another candidate is elected at once. Run several, in as many
 * processes as you like, pointed at the same server.
 */
@Command(name = "leader", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"A leadership candidate: prints each term it holds (elected with its epoch, revoked with why),"
                + " until Ctrl-C or --for.",
                "Run several on one --name, in several processes pointed at the same server (--redis-uri, --pg-url, ...)."})
public final class LeaderCommand extends FencingCommand {

    @Option(names = "--lock", paramLabel = "L", defaultValue = "redis", converter = Kinds.Lock.class,
            completionCandidates = Kinds.LockNames.class,
            description = "Lock provider: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    LockKind lock;

    @Option(names = "--name", paramLabel = "N", required = true, description = "The name to lead: the lock's resource.")
    String name;

    @Option(names = "--candidate", paramLabel = "C", description = "This candidate's name in the output (default: pid@host).")
    String candidate;

    @Option(names = "--ttl", paramLabel = "D", defaultValue = "5s", converter = DurationConverter.class,
            description = "The term's lease TTL, renewed every third of it; 50ms to 7d (default: ${DEFAULT-VALUE}).")
    Duration ttl;

    @Option(names = "--for", paramLabel = "D", converter = DurationConverter.class,
            description = "Stop after this long, 1ms to 7d (default: run until Ctrl-C).")
    Duration runFor;

    @Option(names = "--embedded",
            description = "Run the lock on an embedded server this process starts, which no other candidate can see"
                    + " (without it, a lock with no server given is refused).")
    boolean embedded;

    @Override
    public Integer call() throws InterruptedException {
        DurationConverter.requireBetween("--ttl", ttl, Leadership.MIN_TTL, Duration.ofDays(7));
        if (runFor != null) {
            DurationConverter.requireBetween("--for", runFor, Duration.ofMillis(1), Duration.ofDays(7));
        }
        String me = candidate != null ? candidate : ManagementFactory.getRuntimeMXBean().getName();
        connections.validate();
        if (!embedded) {
            connections.unspecified(lock).ifPresent(option -> {
                throw new CliException(ExitCode.USAGE, "the lock (--lock " + lock.cliName() + ") has no server: give "
                        + option + " so that every candidate shares it, or --embedded to run it on an embedded server"
                        + " private to this process");
            });
        }
        PrintWriter out = out();
        List<Map<String, Object>> terms = new ArrayList<>();
        try (Backends backends = Backends.openLock(lock, connections)) {
            Leadership leadership;
            try {
                leadership = Leadership.builder(backends.locks(), name).ttl(ttl).listener(printer(me, out, terms)).build();
            } catch (IllegalArgumentException e) {
                throw new CliException(ExitCode.USAGE, "--name: " + e.getMessage());
            }
            if (!json) {
                out.println("candidate " + me + " for '" + name + "' on " + backends.lockDescription() + ", TTL "
                        + ttl.toMillis() + " ms");
                out.flush();
            }
            String candidateName = me;
            Thread onCtrlC = new Thread(() -> {
                leadership.stop(); // releases the lock: the next candidate is elected at once
                awaitLastRevocation(terms);
                summary(out, candidateName, terms); // Ctrl-C or SIGTERM: the run's summary all the same
            }, "fencing-leader-stop");
            Runtime.getRuntime().addShutdownHook(onCtrlC);
            leadership.start();
            if (runFor != null) {
                Thread.sleep(runFor.toMillis()); // the run itself: --for
            } else {
                new CountDownLatch(1).await(); // until Ctrl-C: the shutdown hook stops the leadership
            }
            Runtime.getRuntime().removeShutdownHook(onCtrlC);
            leadership.stop();
            awaitLastRevocation(terms);
        }
        summary(out, me, terms);
        return ExitCode.OK;
    }

    /** The JSON report, or the "stopped after N term(s)" line. */
    private void summary(PrintWriter out, String me, List<Map<String, Object>> terms) {
        if (json) {
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("name", name);
            report.put("candidate", me);
            synchronized (terms) {
                report.put("terms", List.copyOf(terms));
            }
            Json.print(out, report);
        } else {
            synchronized (terms) {
                out.println(me + " stopped after " + terms.size() + " term(s)");
            }
        }
        out.flush();
    }

    private LeadershipListener printer(String me, PrintWriter out, List<Map<String, Object>> terms) {
        return new LeadershipListener() {
            @Override
            public void onElected(Term term) {
                synchronized (terms) {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("epoch", term.epoch().value());
                    entry.put("electedAt", term.electedAt().toString());
                    terms.add(entry);
                }
                if (!json) {
                    out.println(term.electedAt() + " " + me + " elected, epoch " + term.epoch().value());
                    out.flush();
                }
            }

            @Override
            public void onRevoked(Term term, RevocationReason reason) {
                if (!json) { // printed before the summary, or before a stopping JVM halts: see awaitLastRevocation
                    out.println(java.time.Instant.now() + " " + me + " revoked, epoch " + term.epoch().value() + ": "
                            + reason);
                    out.flush();
                }
                synchronized (terms) {
                    terms.stream().filter(t -> t.get("epoch").equals(term.epoch().value())).forEach(t -> t.put("revoked",
                            reason.name()));
                    terms.notifyAll();
                }
            }
        };
    }

    /** After stop(): the revocation of a term still held is heard on the listener's thread; up to 5 s. */
    private static void awaitLastRevocation(List<Map<String, Object>> terms) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        synchronized (terms) {
            while (!terms.isEmpty() && !terms.get(terms.size() - 1).containsKey("revoked")) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(terms, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
