package dev.fencing.testkit.history;

import dev.fencing.core.Policy;
import dev.fencing.testkit.history.Operation.Kind;
import dev.fencing.testkit.history.Operation.Outcome;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A recorded history: the operations of one run against stores applying one {@link Policy}, and
 * the seed that generated them.
 *
 * <p>As a file ({@link #writeTo}, {@link #readFrom}) it is UTF-8 text: a header line
 * {@code # fencing-history/1 policy=MONOTONIC seed=42}, then one operation per line with the
 * {@link Operation} fields in order, separated by tabs. Strings are written as {@code ~} for
 * {@code null} or {@code "} followed by the string with backslash, tab, CR and LF escaped
 * ({@code \\ \t \r \n}), so empty strings and nulls stay apart.
 *
 * @param policy the stores' policy
 * @param seed the seed of the run (0 if not generated from one)
 * @param operations the operations, in the order they were recorded
 */
public record History(Policy policy, long seed, List<Operation> operations) {

    private static final String MAGIC = "# fencing-history/1";

    /** Copies {@code operations}. */
    public History {
        if (policy == null) {
            throw new IllegalArgumentException("policy must not be null");
        }
        operations = List.copyOf(operations);
    }

    /** The operations on each key, keys in order. */
    public Map<String, List<Operation>> byKey() {
        return operations.stream().collect(Collectors.groupingBy(Operation::key, TreeMap::new, Collectors.toList()));
    }

    /** Writes this history to {@code file} in the format above, replacing it. */
    public void writeTo(Path file) {
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write history to " + file, e);
        }
    }

    /** Writes this history to {@code out} in the format above. */
    public void writeTo(Writer out) throws IOException {
        out.write(MAGIC + " policy=" + policy + " seed=" + seed + "\n");
        for (Operation op : operations) {
            out.write(op.process() + "\t" + op.writer() + "\t" + text(op.key()) + "\t" + op.kind() + "\t" + op.token()
                    + "\t" + text(op.value()) + "\t" + op.outcome() + "\t" + text(op.observed()) + "\t"
                    + op.observedToken() + "\t" + op.invokedNanos() + "\t" + op.completedNanos() + "\t"
                    + text(op.error()) + "\n");
        }
    }

    /**
     * Reads a history written by {@link #writeTo}.
     *
     * @throws IllegalArgumentException naming the line if the file is not such a history
     */
    public static History readFrom(Path file) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = in.readLine();
            if (header == null || !header.startsWith(MAGIC + " ")) {
                throw new IllegalArgumentException(file + " is not a fencing history: its first line must start with '"
                        + MAGIC + "', got " + (header == null ? "an empty file" : "'" + header + "'"));
            }
            Policy policy = null;
            long seed = 0;
            for (String field : header.substring(MAGIC.length()).trim().split(" ")) {
                if (field.startsWith("policy=")) {
                    policy = Policy.valueOf(field.substring("policy=".length()));
                } else if (field.startsWith("seed=")) {
                    seed = Long.parseLong(field.substring("seed=".length()));
                }
            }
            if (policy == null) {
                throw new IllegalArgumentException(file + ": the header names no policy: '" + header + "'");
            }
            List<Operation> operations = new ArrayList<>();
            int lineNumber = 1;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNumber++;
                if (line.isEmpty()) {
                    continue;
                }
                try {
                    operations.add(parse(line));
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(file + " line " + lineNumber + " is not an operation ("
                            + e.getMessage() + "): '" + line + "'", e);
                }
            }
            return new History(policy, seed, operations);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read history " + file, e);
        }
    }

    private static Operation parse(String line) {
        String[] f = line.split("\t", -1);
        if (f.length != 12) {
            throw new IllegalArgumentException("expected 12 tab-separated fields, got " + f.length);
        }
        return new Operation(Integer.parseInt(f[0]), Integer.parseInt(f[1]), key(f[2]), Kind.valueOf(f[3]),
                Long.parseLong(f[4]), untext(f[5]), Outcome.valueOf(f[6]), untext(f[7]), Long.parseLong(f[8]),
                Long.parseLong(f[9]), Long.parseLong(f[10]), untext(f[11]));
    }

    private static String text(@Nullable String s) {
        if (s == null) {
            return "~";
        }
        StringBuilder out = new StringBuilder(s.length() + 1).append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static String key(String field) {
        String key = untext(field);
        if (key == null) {
            throw new IllegalArgumentException("the key field is a quoted string, got '~' (no key)");
        }
        return key;
    }

    private static @Nullable String untext(String field) {
        if (field.equals("~")) {
            return null;
        }
        if (!field.startsWith("\"")) {
            throw new IllegalArgumentException("a string field starts with '\"' or is '~', got '" + field + "'");
        }
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 1; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i == field.length()) {
                throw new IllegalArgumentException("a string field ends inside an escape");
            }
            char escaped = field.charAt(i);
            out.append(switch (escaped) {
                case '\\' -> '\\';
                case 't' -> '\t';
                case 'n' -> '\n';
                case 'r' -> '\r';
                default -> throw new IllegalArgumentException("unknown escape \\" + escaped);
            });
        }
        return out.toString();
    }
}
