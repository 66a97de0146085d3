package dev.fencing.cli.commands;

import dev.fencing.testkit.history.CheckResult;
import dev.fencing.testkit.history.Operation;
import dev.fencing.testkit.history.Violation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A torture run as one self-contained HTML page with an SVG timeline: a lane per worker with its
 * grants (a tick and the token) and its store calls (a bar from invocation to completion, green
 * accepted, orange refused as stale, grey unknown, blue reads), a lane per faulted server with the
 * faults held (partitioned, paused, killed), and every operation the history checker names in a
 * violation outlined in red and listed under the chart. Hovering an element shows its details.
 * Nothing is loaded from elsewhere: the file opens offline.
 */
final class TimelinePage {

    /** A grant a worker received: when (nanoseconds on the run's clock), the worker, the token. */
    record Grant(long atNanos, int writer, String key, long token) {}

    /** A fault held on a target from {@code startNanos} to {@code endNanos} (run's clock). */
    record Fault(String target, String what, long startNanos, long endNanos) {}

    /**
     * Two leases on one lock valid at once, from the newer one's grant to the last moment the
     * older one was told valid (run's clock).
     */
    record Overlap(String what, long startNanos, long endNanos) {}

    private static final int LANE = 22;
    private static final int LEFT = 120;
    private static final int WIDTH = 1400;

    private TimelinePage() {}

    /**
     * Writes the page to {@code file}.
     *
     * @param title the run's one-line description (the command, the seed)
     * @param checked the recorded store calls and the checker's verdict on them
     * @param grants the grants the workers received
     * @param faults the faults held, per target
     * @param overlaps the lease overlaps found, drawn in red in a lane of their own
     * @param verdict the run's verdict, printed at the top
     */
    static void write(Path file, String title, CheckResult checked, List<Grant> grants, List<Fault> faults,
            List<Overlap> overlaps, String verdict) {
        try {
            Files.writeString(file, render(title, checked, grants, faults, overlaps, verdict), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the timeline to " + file, e);
        }
    }

    static String render(String title, CheckResult checked, List<Grant> grants, List<Fault> faults, String verdict) {
        return render(title, checked, grants, faults, List.of(), verdict);
    }

    static String render(String title, CheckResult checked, List<Grant> grants, List<Fault> faults,
            List<Overlap> overlaps, String verdict) {
        List<Operation> operations = checked.history().operations();
        long end = 1;
        for (Operation op : operations) {
            end = Math.max(end, op.completedNanos());
        }
        for (Grant grant : grants) {
            end = Math.max(end, grant.atNanos());
        }
        for (Fault fault : faults) {
            end = Math.max(end, fault.endNanos());
        }
        for (Overlap overlap : overlaps) {
            end = Math.max(end, overlap.endNanos());
        }
        Map<Operation, Violation> flagged = new IdentityHashMap<>();
        for (Violation violation : checked.violations()) {
            violation.operations().forEach(op -> flagged.put(op, violation));
        }
        Map<Integer, Integer> writerLanes = new TreeMap<>();
        operations.stream().filter(op -> op.writer() >= 0).forEach(op -> writerLanes.put(op.writer(), 0));
        grants.forEach(g -> writerLanes.put(g.writer(), 0));
        int lane = 0;
        for (Map.Entry<Integer, Integer> entry : writerLanes.entrySet()) {
            entry.setValue(lane++);
        }
        Map<String, Integer> targetLanes = new TreeMap<>();
        faults.forEach(f -> targetLanes.put(f.target(), 0));
        for (Map.Entry<String, Integer> entry : targetLanes.entrySet()) {
            entry.setValue(lane++);
        }
        int overlapLane = overlaps.isEmpty() ? -1 : lane++;
        int finalReadsLane = lane++;
        int height = lane * LANE + 40;
        double scale = (double) (WIDTH - LEFT - 20) / end;

        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(height).append("\" font-family=\"monospace\" font-size=\"11\">\n");
        for (int second = 0; second * 1_000_000_000L <= end; second++) {
            double x = LEFT + second * 1_000_000_000L * scale;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" fill=\"#999\">%d s</text>%n", x, x, height - 20, x + 2, height - 6, second));
        }
        writerLanes.forEach((writer, at) -> label(svg, at, writer < TortureCommand.WRITERS_PER_CLIENT ? "worker " + writer
                : "client" + writer / TortureCommand.WRITERS_PER_CLIENT + " w" + writer % TortureCommand.WRITERS_PER_CLIENT));
        targetLanes.forEach((target, at) -> label(svg, at, target));
        label(svg, finalReadsLane, "final reads");
        if (overlapLane >= 0) {
            label(svg, overlapLane, "lease overlaps");
        }
        for (Overlap overlap : overlaps) {
            double x = LEFT + overlap.startNanos() * scale;
            double w = Math.max(2, (overlap.endNanos() - overlap.startNanos()) * scale);
            svg.append(String.format(Locale.ROOT, "<rect class=\"overlap anomaly\" x=\"%.1f\" y=\"%d\" width=\"%.1f\""
                    + " height=\"%d\" fill=\"#f66\" stroke=\"red\" stroke-width=\"2\"><title>%s, %d to %d ms</title></rect>%n",
                    x, overlapLane * LANE + 3, w, LANE - 6, escape(overlap.what()), overlap.startNanos() / 1_000_000,
                    overlap.endNanos() / 1_000_000));
        }
        for (Fault fault : faults) {
            int y = targetLanes.get(fault.target()) * LANE;
            double x = LEFT + fault.startNanos() * scale;
            double w = Math.max(1, (fault.endNanos() - fault.startNanos()) * scale);
            svg.append(String.format(Locale.ROOT, "<rect class=\"fault\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
                    + " fill=\"%s\"><title>%s: %s, %d to %d ms</title></rect>%n", x, y + 3, w, LANE - 6,
                    faultColour(fault.what()), escape(fault.target()), escape(fault.what()),
                    fault.startNanos() / 1_000_000, fault.endNanos() / 1_000_000));
        }
        for (Grant grant : grants) {
            int y = writerLanes.get(grant.writer()) * LANE;
            double x = LEFT + grant.atNanos() * scale;
            svg.append(String.format(Locale.ROOT, "<line class=\"grant\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
                    + " stroke=\"#333\"><title>granted %s, token %d, at %d ms</title></line>%n", x, y + 1, x, y + LANE - 1,
                    escape(grant.key()), grant.token(), grant.atNanos() / 1_000_000));
        }
        for (Operation op : operations) {
            int y = (op.writer() < 0 ? finalReadsLane : writerLanes.get(op.writer())) * LANE;
            double x = LEFT + op.invokedNanos() * scale;
            double w = Math.max(1.5, (op.completedNanos() - op.invokedNanos()) * scale);
            Violation violation = flagged.get(op);
            svg.append(String.format(Locale.ROOT, "<rect class=\"op %s%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
                    + " fill=\"%s\"%s><title>%s</title></rect>%n", op.outcome().name().toLowerCase(Locale.ROOT),
                    violation == null ? "" : " anomaly", x, y + 6, w, LANE - 12, opColour(op),
                    violation == null ? "" : " stroke=\"red\" stroke-width=\"3\"",
                    escape(op + (violation == null ? "" : " | VIOLATION: " + violation.rule().description()))));
        }
        svg.append("</svg>\n");

        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(escape(title)).append("</title>\n<style>body{font-family:sans-serif;margin:1em}"
                        + " .bad{color:#b00} .ok{color:#070} li{font-family:monospace}</style></head><body>\n");
        html.append("<h1>").append(escape(title)).append("</h1>\n");
        html.append("<p class=\"").append(checked.passed() && !verdict.startsWith("INVARIANTS VIOLATED") ? "ok" : "bad").append("\">").append(escape(verdict))
                .append("</p>\n");
        html.append("<p>Bars: a store call from invocation to completion — <span style=\"color:#2a2\">accepted</span>,"
                + " <span style=\"color:#e80\">refused as stale</span>, <span style=\"color:#cc0\">conflict</span>,"
                + " <span style=\"color:#888\">unknown</span>, <span style=\"color:#48c\">read</span>; ticks: grants;"
                + " shaded: faults held (<span style=\"color:#c6c\">partition</span>, <span style=\"color:#99c\">pause"
                + "</span>, <span style=\"color:#c66\">kill</span>); outlined in red: an operation in a violation; red"
                + " in the lease overlaps lane: two leases on one lock valid at once."
                + " Hover for details.</p>\n");
        html.append(svg);
        if (!overlaps.isEmpty()) {
            html.append("<h2 class=\"bad\">Lease overlaps</h2>\n<ul>\n");
            for (Overlap overlap : overlaps) {
                html.append("<li>").append(escape(overlap.what())).append("</li>\n");
            }
            html.append("</ul>\n");
        }
        if (!checked.violations().isEmpty()) {
            html.append("<h2 class=\"bad\">Violations</h2>\n<ul>\n");
            for (Violation violation : checked.violations()) {
                html.append("<li>").append(escape(violation.toString())).append("</li>\n");
            }
            html.append("</ul>\n");
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    private static void label(StringBuilder svg, int lane, String text) {
        svg.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\">%s</text>%n", lane * LANE + LANE - 7, escape(text)));
    }

    private static String opColour(Operation op) {
        if (!op.kind().writes()) {
            return "#48c";
        }
        return switch (op.outcome()) {
            case OK -> "#2a2";
            case STALE -> "#e80";
            case CONFLICT -> "#cc0";
            case UNKNOWN -> "#888";
        };
    }

    private static String faultColour(String what) {
        if (what.startsWith("pause")) {
            return "#99c";
        }
        if (what.startsWith("kill")) {
            return "#c66";
        }
        return "#c6c";
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * The faults held, from a nemesis's start and undo events ({@code atMillis} since
     * {@code nemesisStartNanos}), on the run's clock (which starts at {@code runStartNanos}).
     */
    static List<Fault> faultsFrom(List<Map<String, Object>> events, long nemesisStartNanos, long runStartNanos) {
        List<Fault> faults = new ArrayList<>();
        Map<String, Object[]> open = new java.util.HashMap<>();
        long shift = nemesisStartNanos - runStartNanos;
        for (Map<String, Object> event : events) {
            String kind = String.valueOf(event.get("event"));
            long at = ((Number) event.get("atMillis")).longValue() * 1_000_000 + shift;
            String target = String.valueOf(event.get("target"));
            switch (kind) {
                case "partition", "pause", "kill" -> open.put(kind, new Object[] {target, at});
                case "snapshot", "restore", "skew" -> open.put("cluster", new Object[] {kind + ": " + target, at});
                case "unskew" -> {
                    Object[] began = open.remove("cluster");
                    if (began != null) {
                        faults.add(new Fault("cluster", (String) began[0], Math.max(0, (long) began[1]), at));
                    }
                }
                case "restarting" -> {
                    Object[] began = open.remove("cluster");
                    if (began != null) {
                        faults.add(new Fault("cluster", (String) began[0], Math.max(0, (long) began[1]), at));
                    }
                }
                case "promote" -> open.put("promote", new Object[] {target, at});
                case "heal", "resume", "start" -> {
                    Object[] promoted = kind.equals("start") ? open.remove("promote") : null;
                    if (promoted != null) {
                        faults.add(new Fault("cluster", "promote: " + promoted[0], Math.max(0, (long) promoted[1]), at));
                    }
                    String started = switch (kind) {
                        case "heal" -> "partition";
                        case "resume" -> "pause";
                        default -> "kill";
                    };
                    Object[] began = open.remove(started);
                    if (began != null) {
                        String lane = started.equals("partition") ? "network" : memberOf((String) began[0]);
                        faults.add(new Fault(lane, started + ": " + began[0], Math.max(0, (long) began[1]), at));
                    }
                }
                default -> { }
            }
        }
        return faults;
    }

    private static String memberOf(String target) {
        int space = target.indexOf(' ');
        return space < 0 ? target : target.substring(0, space);
    }
}
