package dev.fencing.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * A hand-written statement whose token marker ({@code :fencing_token}) is replaced by {@code ?}
 * placeholders, remembering where the token goes among the caller's own parameters.
 */
record MarkedStatement(String sql, List<Integer> tokenPositions, int placeholders) {

    static MarkedStatement parse(String sql, String marker, String tokenColumn) {
        if (sql == null || !sql.contains(marker)) {
            throw new IllegalArgumentException("a fenced statement must set and check the token through " + marker
                    + ", e.g. UPDATE accounts SET balance = ?, " + tokenColumn + " = " + marker + " WHERE id = ? AND "
                    + tokenColumn + " <= " + marker + "; got: " + sql);
        }
        StringBuilder out = new StringBuilder();
        List<Integer> positions = new ArrayList<>();
        int placeholders = 0;
        boolean quoted = false;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            }
            if (!quoted && sql.startsWith(marker, i) && !continuesIdentifier(sql, i + marker.length())) {
                positions.add(placeholders++);
                out.append('?');
                i += marker.length() - 1;
                continue;
            }
            if (!quoted && c == '?') {
                placeholders++;
            }
            out.append(c);
        }
        return new MarkedStatement(out.toString(), List.copyOf(positions), placeholders);
    }

    private static boolean continuesIdentifier(String sql, int index) {
        return index < sql.length() && (Character.isLetterOrDigit(sql.charAt(index)) || sql.charAt(index) == '_');
    }

    /** The parameters in placeholder order: the caller's, with the token at each marker's place. */
    List<Object> bind(List<Object> params, long token) {
        if (params.size() + tokenPositions.size() != placeholders) {
            throw new IllegalArgumentException("the statement has " + (placeholders - tokenPositions.size())
                    + " '?' parameters besides the token, got " + params.size() + " values");
        }
        List<Object> bound = new ArrayList<>();
        int next = 0;
        for (int i = 0; i < placeholders; i++) {
            bound.add(tokenPositions.contains(i) ? token : params.get(next++));
        }
        return bound;
    }
}
