package dev.fencing.cli;

import dev.fencing.core.FencedStore;
import dev.fencing.core.LockState;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What the store holds for a resource (value, high-water mark, tombstone) and, with
 * {@code --lock}, the lock's holder, remaining TTL and last token: the first thing to run when a
 * write was refused.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"What the store holds for a resource and, with --lock, who holds the lock.",
                "Value, token high-water mark, tombstone; the lock's holder, remaining TTL and last issued token."})
final class InspectCommand extends FencingCommand {

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
        try (Backend backend = Backend.open(lock == null ? LockKind.REDIS : lock, store, connections)) {
            FencedStore fenced = backend.store(Policy.MONOTONIC);
            Optional<StoredValue> value = fenced.read(resource);
            OptionalLong mark = fenced.highWaterMark(resource);
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("resource", resource);
            report.put("store", backend.storeDescription());
            report.put("state", value.isPresent() ? "present" : mark.isPresent() ? "tombstone" : "absent");
            report.put("value", value.map(StoredValue::value).orElse(null));
            report.put("highWaterMark", mark.isPresent() ? mark.getAsLong() : null);
            Optional<LockState> lockState = lock == null ? Optional.empty() : backend.locks().inspect(resource);
            if (lock != null) {
                report.put("lock", backend.lockDescription());
                report.put("holder", lockState.flatMap(LockState::holder).orElse(null));
                report.put("remainingMillis", lockState.map(s -> s.remaining().toMillis()).orElse(0L));
                report.put("lastToken", lockState.filter(s -> s.lastToken().isPresent())
                        .map(s -> s.lastToken().getAsLong()).orElse(null));
            }
            if (backend.embeddedStore()) {
                err().println("note: this inspected a fresh embedded server, which holds nothing yet;"
                        + " point at your own with --redis-uri / --redis-store-uri or FENCING_REDIS_URI");
                err().flush();
            }
            if (json) {
                Json.print(out, report);
                return ExitCode.OK;
            }
            out.println("resource '" + resource + "' in the " + backend.storeDescription());
            out.println("  store: " + switch ((String) report.get("state")) {
                case "present" -> "value " + quoted(value.get().value()) + ", high-water mark " + mark.getAsLong();
                case "tombstone" -> "deleted (tombstone), high-water mark " + mark.getAsLong()
                        + " — writes with older tokens stay refused";
                default -> "absent: no value and no mark — any token is accepted";
            });
            if (lock != null) {
                out.println("  lock:  " + lockState.map(InspectCommand::describe).orElse("this provider cannot tell"));
            }
            out.flush();
            return ExitCode.OK;
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
