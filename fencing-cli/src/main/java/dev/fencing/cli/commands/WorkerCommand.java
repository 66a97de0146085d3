package dev.fencing.cli.commands;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.cli.Json;
import dev.fencing.cli.backends.Backends;

import dev.fencing.core.FencedStore;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A fenced read-modify-write loop: acquire, add one to the counter stored under the resource
 * with the lease's token (the store's fenced {@code update}), release — K times. Several workers,
 * in as many processes as you like, end with the counter equal to the sum of their accepted
 * increments, whatever happens to any of them.
 *
 * <p>Workers only share a lock and a store through servers they are all pointed at: a side with
 * no server given is refused (bad usage, naming the option) unless {@code --embedded} asks for an
 * embedded server private to this process. The lock and store in use are printed first.
 */
@Command(name = "worker", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Fenced increments of a stored counter: acquire, update with the token, release; K times.",
                "Run several on one resource (in several processes) and add up their 'accepted' counts.",
                "Point every worker at the same servers (--redis-uri, --pg-url, ...); a lock or store with no server"
                        + " given is refused unless --embedded."})
public final class WorkerCommand extends FencingCommand {

    @Mixin
    LockStoreOptions kinds;

    @Option(names = "--resource", paramLabel = "R", required = true, description = "The resource (and store key) to increment.")
    String resource;

    @Option(names = "--increments", paramLabel = "K", required = true, description = "How many increments to attempt (1 to 1000000).")
    int increments;

    @Option(names = "--ttl", paramLabel = "D", defaultValue = "2s", converter = DurationConverter.class,
            description = "Lease TTL, 1ms to 7d, whole milliseconds (default: ${DEFAULT-VALUE}).")
    Duration ttl;

    @Option(names = "--hold", paramLabel = "D", defaultValue = "0ms", converter = DurationConverter.class,
            description = "Time spent inside the critical section before writing, 0 or more; longer than --ttl makes a"
                    + " zombie (default: ${DEFAULT-VALUE}).")
    Duration hold;

    @Option(names = "--embedded",
            description = "Run a lock or store that has no server given on an embedded server this process starts and"
                    + " no other worker can see (without it, such a worker is refused).")
    boolean embedded;

    @Option(names = "--wait", paramLabel = "D", defaultValue = "30s", converter = DurationConverter.class,
            description = "How long one acquire waits for the lock, 0 to 7d (default: ${DEFAULT-VALUE}).")
    Duration wait;

    @Override
    public Integer call() throws InterruptedException {
        if (increments < 1 || increments > 1_000_000) {
            throw new CliException(ExitCode.USAGE, "--increments must be between 1 and 1000000, got " + increments);
        }
        LeaseOptions options = leaseOptions(ttl, wait);
        connections.validate();
        if (!embedded) {
            refuseUnshared("lock (--lock " + kinds.lock.cliName() + ")", connections.unspecified(kinds.lock));
            refuseUnshared("store (--store " + kinds.store.cliName() + ")", connections.unspecified(kinds.store));
        }
        try (Backends backends = Backends.open(kinds.lock, kinds.store, connections)) {
            if (!json) {
                out().println("worker on '" + resource + "'");
                out().println("  lock:  " + backends.lockDescription());
                out().println("  store: " + backends.storeDescription());
                out().flush();
            }
            FencedStore store = backends.store(Policy.MONOTONIC);
            Outcomes outcomes = new Outcomes();
            RuntimeException fatal = null;
            try {
                increment(backends, store, options, outcomes);
            } catch (RuntimeException e) { // not a failure an increment counts: the summary still comes first
                fatal = e;
                outcomes.fatal(e);
            }
            report(backends, outcomes, counterOf(store));
            if (fatal != null) {
                throw fatal;
            }
            return outcomes.violations().isEmpty() ? ExitCode.OK : ExitCode.INVARIANT_VIOLATED;
        }
    }

    private void increment(Backends backends, FencedStore store, LeaseOptions options, Outcomes outcomes)
            throws InterruptedException {
        long[] lastGranted = {0};
        long lastWritten = Long.MIN_VALUE;
        for (int i = 0; i < increments; i++) {
            StoredValue written = FencedIncrement.run(backends.locks(), store, resource, options, hold, outcomes, token -> {
                if (token <= lastGranted[0]) {
                    outcomes.violation("token " + token + " granted after token " + lastGranted[0] + " on '" + resource
                            + "'");
                }
                lastGranted[0] = token;
            });
            if (written != null) {
                long value = Long.parseLong(written.value());
                if (value <= lastWritten) {
                    outcomes.violation("the counter went from " + lastWritten + " to " + value + " between two of this"
                            + " worker's accepted increments");
                }
                lastWritten = value;
            }
        }
    }

    /** The counter's value now, or why it could not be read (the store may still not answer). */
    private String counterOf(FencedStore store) {
        try {
            return store.read(resource).map(StoredValue::value).orElse("absent");
        } catch (RuntimeException e) {
            return "unknown (" + e.getClass().getSimpleName() + ")";
        }
    }

    private static void refuseUnshared(String side, Optional<String> missingOption) {
        missingOption.ifPresent(option -> {
            throw new CliException(ExitCode.USAGE, "the " + side + " has no server: give " + option + " so that every"
                    + " worker shares it, or --embedded to run it on an embedded server private to this process"
                    + " (other workers would not see it)");
        });
    }

    static LeaseOptions leaseOptions(Duration ttl, Duration wait) {
        DurationConverter.requireBetween("--ttl", ttl, LeaseOptions.MIN_TTL, LeaseOptions.MAX_TTL);
        DurationConverter.requireBetween("--wait", wait, Duration.ZERO, LeaseOptions.MAX_WAIT);
        try {
            return LeaseOptions.builder().ttl(ttl).waitTimeout(wait).build();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--ttl/--wait: " + e.getMessage());
        }
    }


    private void report(Backends backends, Outcomes outcomes, String counter) {
        PrintWriter out = out();
        Map<String, Object> report = outcomes.toMap();
        report.put("resource", resource);
        report.put("lock", backends.lockDescription());
        report.put("store", backends.storeDescription());
        report.put("counter", counter);
        if (json) {
            Json.print(out, report);
            return;
        }
        out.printf("  accepted %d, rejected as stale %d, failed %d, leases lost %d; tokens %d..%d;"
                        + " counter now %s%n", outcomes.accepted(), outcomes.rejectedStale(),
                outcomes.failedCount(), report.get("leasesLost"), report.get("firstToken"), report.get("lastToken"),
                counter);
        outcomes.violations().forEach(v -> out.println("INVARIANT VIOLATED: " + v));
        out.flush();
    }
}
