package dev.fencing.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The text form of a bench report: per comparison its title and server, then one line per row
 * with its fields, the ratio as its median over the repeats with the minimum and maximum beside it.
 */
final class BenchReport {

    /** The fields of a result printed in its heading or as its rows. */
    private static final Set<String> SHOWN_ABOVE = Set.of("comparison", "title", "server", "rows");

    private BenchReport() {}

    static void printText(PrintWriter out, Map<String, Object> report, List<Map<String, Object>> results) {
        out.println("fencing bench (" + report.get("mode") + ", " + report.get("repeats") + " repeat(s)) on "
                + report.get("machine"));
        for (Map<String, Object> result : results) {
            out.println();
            out.println(result.get("comparison") + ". " + result.get("title"));
            if (result.containsKey("server")) {
                out.println("   on " + result.get("server"));
            }
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> rows = (List<Map<String, Object>>) result.get("rows");
            for (Map<String, Object> row : rows) {
                out.println("   " + line(row));
            }
            result.forEach((key, value) -> {
                if (value instanceof Map<?, ?> summary && summary.containsKey("median")) {
                    out.println("   " + key + ": median " + summary.get("median") + " (min " + summary.get("min")
                            + ", max " + summary.get("max") + ")");
                } else if (!SHOWN_ABOVE.contains(key)) {
                    out.println("   " + key + ": " + value);
                }
            });
        }
    }

    /** One row as {@code key=value} pairs; the ratio's spread goes next to its median. */
    private static String line(Map<String, Object> row) {
        StringBuilder line = new StringBuilder();
        row.forEach((key, value) -> {
            switch (key) {
                case "ratioMin", "ratioMax", "ratioPerRepeat" -> { } // shown with the median
                case "ratioToBaseline" -> line.append(key).append('=').append(value).append(" (min ")
                        .append(row.get("ratioMin")).append(", max ").append(row.get("ratioMax")).append(")  ");
                default -> line.append(key).append('=').append(value).append("  ");
            }
        });
        return line.toString().stripTrailing();
    }
}
