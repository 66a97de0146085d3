package dev.fencing.cli.commands;

import dev.fencing.cli.ExitCode;
import dev.fencing.cli.Json;
import dev.fencing.cli.backends.Backends;
import dev.fencing.cli.backends.LockKind;
import dev.fencing.cli.backends.StoreKind;

import dev.fencing.core.FencedStore;
import dev.fencing.core.LockState;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.s3.S3ServerCheck;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What the store holds for a resource (value, high-water mark, tombstone) — for the jdbc store also
 * the fence row of a lock so named and the row guard's entry under that name, which guard the
 * JDBC fences' writes — and, with
 * {@code --lock}, the lock's holder, remaining TTL and last token: the first thing to run when a
 * write was refused. A diagnostic: it writes nothing (no migration, no table or bucket, SQL
 * sessions read-only); where the toolkit's table or bucket is missing it says so, as the state
 * {@code not-set-up} and the list {@code missing}, and exits 0 like any other answer. With
 * {@code --store s3} it also runs {@link dev.fencing.s3.S3ServerCheck} on the bucket (one scratch
 * object under {@code .fencing-check/}, written and deleted) and reports whether the server honours
 * the conditions and metadata the fence rests on; a server that does not makes the exit code 5.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"What the store holds for a resource and, with --lock, who holds the lock.",
                "Value, token high-water mark, tombstone; the lock's holder, remaining TTL and last issued token.",
                "Read-only: creates and migrates nothing; a missing table or bucket of the toolkit is reported"
                        + " (state not-set-up, exit 0).",
                "With --store s3 it also checks the server's conditional writes and metadata on one scratch object"
                        + " under .fencing-check/ (deleted after); a server that fails exits 5."})
public final class InspectCommand extends FencingCommand {

    @Option(names = "--store", paramLabel = "S", defaultValue = "redis", converter = Kinds.Store.class,
            completionCandidates = Kinds.StoreNames.class,
            description = "Fenced store: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    StoreKind store;

    @Option(names = "--resource", paramLabel = "R", required = true, description = "The resource (store key) to inspect.")
    String resource;

    @Option(names = "--lock", paramLabel = "L", converter = Kinds.Lock.class, completionCandidates = Kinds.LockNames.class,
            description = "Also show the lock's state in this provider: ${COMPLETION-CANDIDATES}.")
    LockKind lock;

    @Override
    public Integer call() {
        PrintWriter out = out();
        try (Backends backends = Backends.openReadOnly(lock, store, connections)) {
            boolean storeReady = backends.storeNotSetUp() == null;
            FencedStore fenced = storeReady ? backends.store(Policy.MONOTONIC) : null;
            Optional<StoredValue> value = storeReady ? fenced.read(resource) : Optional.empty();
            OptionalLong mark = storeReady ? fenced.highWaterMark(resource) : OptionalLong.empty();
            List<String> missing = new ArrayList<>();
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("resource", resource);
            report.put("store", backends.storeDescription());
            report.put("state", !storeReady ? "not-set-up" : value.isPresent() ? "present"
                    : mark.isPresent() ? "tombstone" : "absent");
            report.put("value", value.map(StoredValue::value).orElse(null));
            report.put("highWaterMark", mark.isPresent() ? mark.getAsLong() : null);
            Map<String, Long> fenceMarks = storeReady ? backends.fenceMarks(resource) : Map.of();
            if (!fenceMarks.isEmpty()) {
                report.put("fence", fenceMarks);
            }
            if (!storeReady) {
                missing.add(backends.storeNotSetUp());
            }
            boolean lockReady = lock != null && backends.lockNotSetUp() == null;
            Optional<LockState> lockState = lockReady ? backends.locks().inspect(resource) : Optional.empty();
            if (lock != null) {
                report.put("lock", backends.lockDescription());
                report.put("holder", lockState.flatMap(LockState::holder).orElse(null));
                report.put("remainingMillis", lockState.map(s -> s.remaining().toMillis()).orElse(0L));
                report.put("lastToken", lockState.filter(s -> s.lastToken().isPresent())
                        .map(s -> s.lastToken().getAsLong()).orElse(null));
                if (!lockReady) {
                    missing.add(backends.lockNotSetUp());
                }
            }
            report.put("missing", missing);
            Optional<S3ServerCheck> serverCheck = storeReady ? backends.checkS3Server() : Optional.empty();
            serverCheck.ifPresent(check -> {
                Map<String, Object> checked = new LinkedHashMap<>();
                checked.put("passed", check.passed());
                checked.put("problems", check.problems());
                report.put("serverCheck", checked);
            });
            int exit = serverCheck.map(S3ServerCheck::passed).orElse(true) ? ExitCode.OK : ExitCode.UNSAFE_SERVER;
            if (backends.embeddedStore()) {
                err().println("note: this inspected a fresh embedded server, which holds nothing yet;"
                        + " point at your own with " + connections.unspecified(store).orElse("the store's option"));
                err().flush();
            }
            if (json) {
                Json.print(out, report);
                return exit;
            }
            out.println("resource '" + resource + "' in the " + backends.storeDescription());
            out.println("  store: " + switch ((String) report.get("state")) {
                case "not-set-up" -> "not set up here: " + backends.storeNotSetUp() + " — nothing was ever stored"
                        + " by the toolkit on this server (is it the right one?); inspect created nothing";
                case "present" -> "value " + quoted(value.get().value()) + ", high-water mark " + mark.getAsLong();
                case "tombstone" -> "deleted (tombstone), high-water mark " + mark.getAsLong()
                        + " — writes with older tokens stay refused";
                default -> fenceMarks.isEmpty() ? "absent: no value and no mark — any token is accepted"
                        : "absent: no value and no mark in the store (but see the fence below)";
            });
            if (fenceMarks.containsKey("lock")) {
                out.println("  fence: lock '" + resource + "' at token " + fenceMarks.get("lock") + " — transactions"
                        + " fenced by this lock (JdbcFence, JdbiFence, TransactionalFence, RowGuard) with older tokens"
                        + " are refused");
            }
            if (fenceMarks.containsKey("row")) {
                out.println("  row guard: entry '" + resource + "' at token " + fenceMarks.get("row") + " — RowGuard"
                        + " writes of that row (a fenced delete left this mark) with older tokens are refused");
            }
            if (lock != null) {
                out.println("  lock:  " + (!lockReady ? "not set up here: " + backends.lockNotSetUp()
                        + "; inspect created nothing" : lockState.map(InspectCommand::describe)
                                .orElse("this provider cannot tell")));
            }
            serverCheck.ifPresent(check -> out.println("  server: " + (check.passed()
                    ? "honours If-Match, If-None-Match: * and the toolkit's metadata (checked on a scratch object)"
                    : "NOT SAFE for fenced writes — " + String.join("; ", check.problems()))));
            out.flush();
            return exit;
        }
    }

    private static String describe(LockState state) {
        String last = state.lastToken().isPresent() ? "last token " + state.lastToken().getAsLong() : "no token issued yet";
        String remaining = state.remaining().isZero() ? "" : " for " + state.remaining().toMillis() + " ms more";
        return state.holder().map(h -> "held by " + h + remaining + "; " + last).orElse("free; " + last);
    }

    private static String quoted(String value) {
        return value.length() > 200 ? "\"" + value.substring(0, 200) + "…\" (" + value.length() + " chars)" : "\"" + value + "\"";
    }
}
