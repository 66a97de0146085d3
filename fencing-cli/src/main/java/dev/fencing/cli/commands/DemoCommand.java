package dev.fencing.cli.commands;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.cli.Json;
import dev.fencing.cli.backends.Backends;
import dev.fencing.cli.backends.FencedService;
import dev.fencing.cli.backends.FencedServiceClient;
import dev.fencing.cli.backends.PlainStore;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import java.io.PrintWriter;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Kleppmann's zombie writer (article §13), step by step: client 1 takes the lock, pauses past
 * its TTL, client 2 takes the lock and writes, client 1 wakes and writes — and the fenced store
 * refuses it. Then the same steps through the same storage without the token check, showing the
 * lost update fencing prevents.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Kleppmann's zombie writer step by step: refused with fencing, a lost update without.",
                "Needs no running service: embedded servers by default."})
public final class DemoCommand extends FencingCommand {

    private static final long OPENING_BALANCE = 100;
    private static final long DEPOSIT = 50;
    private static final long WITHDRAWAL = 30;

    @Mixin
    LockStoreOptions kinds;

    @Option(names = "--ttl", paramLabel = "D", defaultValue = "1s", converter = DurationConverter.class,
            description = "Lease TTL, 100ms to 1m; client 1 pauses longer than this (default: ${DEFAULT-VALUE}).")
    Duration ttl;

    @Option(names = "--over", paramLabel = "WAY", defaultValue = "direct",
            description = "How the clients reach the accounts: direct (the store's client) or http (a service on"
                    + " loopback that writes to the store with the token the caller sent in its Fencing-Token header;"
                    + " default: ${DEFAULT-VALUE}).")
    String over;

    @Override
    public Integer call() {
        DurationConverter.requireBetween("--ttl", ttl, Duration.ofMillis(100), Duration.ofMinutes(1));
        if (!over.equals("direct") && !over.equals("http")) {
            throw new CliException(ExitCode.USAGE, "--over: '" + over + "' is not a way; use direct or http");
        }
        PrintWriter out = out();
        try (Backends backends = Backends.open(kinds.lock, kinds.store, connections);
                FencedService service = over.equals("http") ? FencedService.start(backends) : null) {
            Accounts accounts = service == null ? Accounts.direct(backends.store(Policy.MONOTONIC), backends.plainStore())
                    : Accounts.overHttp(new FencedServiceClient(service.url()));
            String account = "demo-account-" + HexFormat.of().formatHex(SecureRandom.getSeed(3));
            PrintWriter timelineOut = json ? null : out;
            if (!json) {
                out.println("Zombie-writer demo (Kleppmann, \"How to do distributed locking\")");
                out.println("  lock:  " + backends.lockDescription());
                out.println("  store: " + backends.storeDescription());
                if (service != null) {
                    out.println("  over:  HTTP to an accounts service at " + service.url() + " that writes to the store"
                            + " with the token each request carries (Fencing-Token header)");
                }
                out.println("  tokens: " + backends.tokenNote());
                out.println("  account '" + account + "' opens at " + OPENING_BALANCE + "; client-2 deposits " + DEPOSIT
                        + ", client-1 withdraws " + WITHDRAWAL + "; lease TTL " + ttl.toMillis() + " ms");
                out.println();
                out.println(service == null ? "1) With fencing: the store checks every write's token"
                        : "1) With fencing: the service writes with each request's token, the store checks it");
            }
            Run fenced = runFenced(backends, accounts, account, new Timeline(timelineOut));
            if (!json) {
                out.println();
                out.println("   final: balance " + fenced.finalBalance + " (token " + fenced.finalToken + ") — "
                        + (fenced.correct() ? "correct: 100 + 50; the zombie's write was refused."
                                : "WRONG: expected 150."));
                out.println();
                out.println("2) Without fencing: the same steps, plain writes to the same storage");
            }
            Run plain = runPlain(backends, accounts, account, new Timeline(timelineOut));
            if (!json) {
                out.println();
                out.println("   final: balance " + plain.finalBalance + " — "
                        + (plain.finalBalance == OPENING_BALANCE - WITHDRAWAL
                                ? "client-2's deposit of " + DEPOSIT + " is lost: the zombie overwrote it."
                                : "no lost update this time."));
                out.println();
                out.println(fenced.correct()
                        ? "Fencing turned a silent lost update into a refused write (StaleTokenException)."
                        : "INVARIANT VIOLATED: the fenced store accepted the zombie's write.");
                out.flush();
            } else {
                Map<String, Object> report = new LinkedHashMap<>();
                report.put("lock", backends.lockDescription());
                report.put("store", backends.storeDescription());
                report.put("over", over);
                report.put("resource", account);
                report.put("ttlMillis", ttl.toMillis());
                report.put("runs", List.of(fenced.toJson(true), plain.toJson(false)));
                report.put("ok", fenced.correct());
                Json.print(out, report);
            }
            return fenced.correct() ? ExitCode.OK : ExitCode.INVARIANT_VIOLATED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCode.UNREACHABLE, "interrupted");
        }
    }

    private Run runFenced(Backends backends, Accounts accounts, String account, Timeline timeline)
            throws InterruptedException {
        LockProvider locks = backends.locks();
        LeaseOptions options = clientOptions();
        LeaseOptions patient = patient(options);
        try (Lease setup = locks.acquire(account, patient)) {
            accounts.write(setup, account, Long.toString(OPENING_BALANCE));
            timeline.event("setup", "writes balance " + OPENING_BALANCE, setup.token().value(), "accepted");
        }
        Lease client1 = locks.acquire(account, options);
        timeline.event("client-1", "acquires the lock", client1.token().value(), "granted");
        long seen1 = balance(accounts.read(account));
        timeline.event("client-1", "reads the balance", client1.token().value(), Long.toString(seen1));
        timeline.event("client-1", "pauses (a stop-the-world GC) for longer than its TTL", 0, "");

        Lease client2 = locks.acquire(account, patient);
        timeline.event("client-2", "acquires the lock once client-1's lease expired", client2.token().value(), "granted");
        long seen2 = balance(accounts.read(account));
        timeline.event("client-2", "reads the balance", client2.token().value(), Long.toString(seen2));
        accounts.write(client2, account, Long.toString(seen2 + DEPOSIT));
        timeline.event("client-2", "writes " + (seen2 + DEPOSIT) + " (deposit " + DEPOSIT + ")", client2.token().value(),
                "accepted");
        client2.release();
        timeline.event("client-2", "releases the lock", client2.token().value(), "released");

        timeline.event("client-1", "wakes up, still believes it holds the lock", client1.token().value(),
                "lease valid: " + client1.isValid());
        boolean refused;
        try {
            accounts.write(client1, account, Long.toString(seen1 - WITHDRAWAL));
            refused = false;
            timeline.event("client-1", "writes " + (seen1 - WITHDRAWAL) + " (withdraw " + WITHDRAWAL + ")",
                    client1.token().value(), "ACCEPTED");
        } catch (StaleTokenException e) {
            refused = true;
            timeline.event("client-1", "writes " + (seen1 - WITHDRAWAL) + " (withdraw " + WITHDRAWAL + ")",
                    client1.token().value(), "REFUSED" + accounts.refusedBy() + ": " + e.getMessage());
        }
        releaseZombie(client1, timeline);
        StoredValue last = accounts.read(account).orElseThrow();
        return new Run(timeline, refused, Long.parseLong(last.value()), last.token());
    }

    private Run runPlain(Backends backends, Accounts fencedAccounts, String account, Timeline timeline)
            throws InterruptedException {
        LockProvider locks = backends.locks();
        PlainStore accounts = fencedAccounts.plain();
        LeaseOptions options = clientOptions();
        accounts.write(account, Long.toString(OPENING_BALANCE));
        timeline.event("setup", "writes balance " + OPENING_BALANCE, 0, "written");
        Lease client1 = locks.acquire(account, options);
        timeline.event("client-1", "acquires the lock", client1.token().value(), "granted");
        long seen1 = Long.parseLong(accounts.read(account).orElseThrow());
        timeline.event("client-1", "reads the balance", 0, Long.toString(seen1));
        timeline.event("client-1", "pauses (a stop-the-world GC) for longer than its TTL", 0, "");

        Lease client2 = locks.acquire(account, patient(options));
        timeline.event("client-2", "acquires the lock once client-1's lease expired", client2.token().value(), "granted");
        long seen2 = Long.parseLong(accounts.read(account).orElseThrow());
        timeline.event("client-2", "reads the balance", 0, Long.toString(seen2));
        accounts.write(account, Long.toString(seen2 + DEPOSIT));
        timeline.event("client-2", "writes " + (seen2 + DEPOSIT) + " (deposit " + DEPOSIT + ")", 0, "written");
        client2.release();
        timeline.event("client-2", "releases the lock", client2.token().value(), "released");

        timeline.event("client-1", "wakes up, still believes it holds the lock", client1.token().value(),
                "lease valid: " + client1.isValid());
        accounts.write(account, Long.toString(seen1 - WITHDRAWAL));
        timeline.event("client-1", "writes " + (seen1 - WITHDRAWAL) + " (withdraw " + WITHDRAWAL + ")", 0,
                "written — nothing checks it");
        releaseZombie(client1, timeline);
        long last = Long.parseLong(accounts.read(account).orElseThrow());
        return new Run(timeline, false, last, 0);
    }

    /**
     * Client 2 waits for client 1's lease to end on the server: ten TTLs, and 5 s more for etcd,
     * whose leases last whole seconds (at least one) and are expired by a periodic sweep.
     */
    private LeaseOptions clientOptions() {
        return LeaseOptions.builder().ttl(ttl).waitTimeout(ttl.multipliedBy(10).plusSeconds(5)).build();
    }

    /** Only client 1 pauses past its TTL: the setup and client 2 get time enough for a slow first request. */
    private static LeaseOptions patient(LeaseOptions options) {
        return options.withTtl(Duration.ofSeconds(30));
    }

    private static void releaseZombie(Lease zombie, Timeline timeline) {
        try {
            zombie.release();
            timeline.event("client-1", "releases the lock", zombie.token().value(), "released");
        } catch (LeaseLostException e) {
            timeline.event("client-1", "releases the lock", zombie.token().value(), "refused: it no longer held it");
        }
    }

    private static long balance(Optional<StoredValue> stored) {
        return Long.parseLong(stored.orElseThrow(() -> new IllegalStateException("the opening balance is missing"))
                .value());
    }

    private record Run(Timeline timeline, boolean zombieRefused, long finalBalance, long finalToken) {
        boolean correct() {
            return zombieRefused && finalBalance == OPENING_BALANCE + DEPOSIT;
        }

        Map<String, Object> toJson(boolean fenced) {
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("fenced", fenced);
            run.put("events", timeline.events());
            run.put("finalBalance", finalBalance);
            if (fenced) {
                run.put("finalToken", finalToken);
                run.put("zombieWriteRefused", zombieRefused);
            }
            run.put("lostUpdate", finalBalance != OPENING_BALANCE + DEPOSIT);
            return run;
        }
    }
}
