package dev.fencing.cli.commands;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo's timeline: who did what, when, with which token, and what the store answered.
 * Printed as it happens (text) or kept for the JSON report.
 */
final class Timeline {

    private final long startNanos = System.nanoTime();
    private final PrintWriter out;
    private final List<Map<String, Object>> events = new ArrayList<>();

    /** A timeline printing to {@code out}, or only recording when {@code out} is null. */
    Timeline(PrintWriter out) {
        this.out = out;
    }

    /** Records one step. {@code token} is 0 when the step has none. */
    void event(String actor, String action, long token, String outcome) {
        long millis = (System.nanoTime() - startNanos) / 1_000_000;
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("atMillis", millis);
        event.put("actor", actor);
        event.put("action", action);
        if (token > 0) {
            event.put("token", token);
        }
        event.put("outcome", outcome);
        events.add(event);
        if (out != null) {
            String tokenText = token > 0 ? "[token " + token + "] " : "";
            out.printf("%6d ms  %-9s %s%s%n", millis, actor, tokenText, action + (outcome.isEmpty() ? "" : "  ->  " + outcome));
            out.flush();
        }
    }

    /** A line of narration between steps (text only). */
    void say(String text) {
        if (out != null) {
            out.println(text);
            out.flush();
        }
    }

    List<Map<String, Object>> events() {
        return events;
    }
}
