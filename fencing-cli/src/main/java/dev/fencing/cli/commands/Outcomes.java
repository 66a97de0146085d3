package dev.fencing.cli.commands;

import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * What a run of fenced increments did — accepted, refused as stale, failed, leases lost — the
 * invariant violations seen along the way, and the error that ended it early if one did. Thread-safe.
 */
final class Outcomes {

    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong rejectedStale = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong leasesLost = new AtomicLong();
    private final AtomicLong firstToken = new AtomicLong();
    private final AtomicLong lastToken = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentSkipListMap<>();
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private volatile @Nullable String fatal;

    void accepted(long token) {
        accepted.incrementAndGet();
        firstToken.compareAndSet(0, token);
        lastToken.accumulateAndGet(token, Math::max);
    }

    /** Counts a refusal, and records a violation if the store refused a token that was not stale. */
    void rejected(StaleTokenException e) {
        rejectedStale.incrementAndGet();
        long presented = e.presented().value();
        boolean reallyStale = e.policy() == Policy.STRICT ? e.highWaterMark() >= presented : e.highWaterMark() > presented;
        if (!reallyStale) {
            violation("the store refused token " + presented + " on '" + e.key() + "' as stale, but its mark was only "
                    + e.highWaterMark() + " under " + e.policy());
        }
    }

    /** Counts a failed operation under the simple name of what failed it. */
    void failed(Exception cause) {
        failed.incrementAndGet();
        failures.computeIfAbsent(cause.getClass().getSimpleName(), k -> new AtomicLong()).incrementAndGet();
    }

    /** Records the error that ended the run early, for the summary. */
    void fatal(Exception cause) {
        fatal = cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    void leaseLost() {
        leasesLost.incrementAndGet();
    }

    void violation(String what) {
        violations.add(what);
    }

    long accepted() {
        return accepted.get();
    }

    long rejectedStale() {
        return rejectedStale.get();
    }

    long failedCount() {
        return failed.get();
    }

    List<String> violations() {
        synchronized (violations) {
            return List.copyOf(violations);
        }
    }

    /**
     * Adds the counts of another process's run ({@link #toMap()}, as JSON): its violations and the
     * error that ended it early, if any, prefixed with {@code source}.
     */
    void absorb(com.fasterxml.jackson.databind.JsonNode counts, String source) {
        accepted.addAndGet(counts.path("accepted").asLong());
        rejectedStale.addAndGet(counts.path("rejectedStale").asLong());
        failed.addAndGet(counts.path("failed").asLong());
        leasesLost.addAndGet(counts.path("leasesLost").asLong());
        long first = counts.path("firstToken").asLong();
        if (first > 0) {
            firstToken.accumulateAndGet(first, (mine, theirs) -> mine == 0 ? theirs : Math.min(mine, theirs));
        }
        lastToken.accumulateAndGet(counts.path("lastToken").asLong(), Math::max);
        counts.path("failures").properties().forEach(cause -> failures.computeIfAbsent(cause.getKey(),
                k -> new AtomicLong()).addAndGet(cause.getValue().asLong()));
        counts.path("violations").forEach(v -> violation(source + v.asText()));
        if (counts.hasNonNull("fatal")) {
            fatal = source + counts.get("fatal").asText();
        }
    }

    /** The counts as an ordered map, for JSON and the text summary. */
    Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("accepted", accepted.get());
        map.put("rejectedStale", rejectedStale.get());
        map.put("failed", failed.get());
        Map<String, Long> byCause = new LinkedHashMap<>();
        failures.forEach((cause, count) -> byCause.put(cause, count.get()));
        map.put("failures", byCause);
        map.put("leasesLost", leasesLost.get());
        map.put("firstToken", firstToken.get());
        map.put("lastToken", lastToken.get());
        map.put("violations", violations());
        map.put("fatal", fatal);
        return map;
    }
}
