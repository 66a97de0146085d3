package dev.fencing.jdbc;

import dev.fencing.core.Policy;
import dev.fencing.jdbc.SqlLexer.Kind;
import dev.fencing.jdbc.SqlLexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A hand-written {@code UPDATE} of one row, rewritten so that it cannot bypass the row guard:
 *
 * <pre>
 * UPDATE accounts SET balance = balance - ? WHERE balance &gt;= ?
 * →
 * UPDATE accounts SET fencing_token = ?, balance = balance - ?
 *   WHERE (balance &gt;= ?) AND accounts.id = ? AND accounts.fencing_token &lt;= ?
 * </pre>
 *
 * The token column is set to the token (the caller's own {@code fencing_token = :fencing_token}
 * is kept, any other value for it is refused), the caller's condition is wrapped in parentheses
 * so that an {@code OR} in it cannot escape, and the row's key and the guard under the table's
 * policy are AND-ed to it. Only a single-table {@code UPDATE ... SET ... [WHERE ...]} is accepted
 * (MySQL's {@code ORDER BY}/{@code LIMIT} after it are kept); assignments to a key column are
 * refused (moving a row to another key would step past that key's fence entry).
 */
final class GuardedStatement {

    /** Where each {@code ?} of the rewritten statement takes its value from. */
    private record Binding(char source, int index) {}

    private static final Set<String> AFTER_SET = Set.of("WHERE", "FROM", "RETURNING", "ORDER", "LIMIT");
    private static final Set<String> AFTER_WHERE = Set.of("RETURNING", "ORDER", "LIMIT");

    private final String sql;
    private final String writtenTable;
    private final List<Binding> bindings;
    private final int callerParameters;

    private GuardedStatement(String sql, String writtenTable, List<Binding> bindings, int callerParameters) {
        this.sql = sql;
        this.writtenTable = writtenTable;
        this.bindings = bindings;
        this.callerParameters = callerParameters;
    }

    /**
     * Parses and rewrites {@code sql}.
     *
     * @throws IllegalArgumentException for anything but one single-table {@code UPDATE} this guard
     *     can read, saying what to write instead
     */
    static GuardedStatement parse(String sql, SqlDialect dialect, String marker, String tokenColumn, List<String> keyColumns,
            Policy policy) {
        return parse(sql, dialect, marker, tokenColumn, keyColumns, policy, null);
    }

    /**
     * As {@link #parse(String, SqlDialect, String, String, List, Policy)}, with the statement's
     * table written as {@code resolvedTable} (schema-qualified and quoted): the statement then
     * updates the table the guard resolved, whatever the connection's search path finds first.
     */
    static GuardedStatement parse(String sql, SqlDialect dialect, String marker, String tokenColumn, List<String> keyColumns,
            Policy policy, @Nullable String resolvedTable) {
        if (sql == null || sql.isBlank()) {
            throw new IllegalArgumentException("the statement must not be blank");
        }
        List<Token> tokens = SqlLexer.tokens(sql, dialect, marker);
        if (tokens.isEmpty() || !tokens.get(0).isWord("UPDATE")) {
            throw SqlLexer.refuse("execute runs only an UPDATE of this table. For INSERT use insert or upsert, for DELETE"
                    + " use delete: they pass the row's fence entry, so a deleted row's mark survives it", sql);
        }
        int tableStart = 1;
        int i = tableStart;
        while (i < tokens.size() && isName(tokens.get(i))) {
            i++;
            if (i + 1 < tokens.size() && tokens.get(i).isSymbol(".")) {
                i++;
            } else {
                break;
            }
        }
        if (i == tableStart || i >= tokens.size() || !tokens.get(i).isWord("SET")) {
            throw SqlLexer.refuse("expected UPDATE <table> SET ... (no alias, join, ONLY or IGNORE)", sql);
        }
        String writtenTable = sql.substring(tokens.get(tableStart).start(), tokens.get(i - 1).end());
        int set = i;
        int setEnd = clauseEnd(tokens, set + 1, AFTER_SET);
        boolean setsToken = checkAssignments(sql, tokens, set + 1, setEnd, tokenColumn, keyColumns);
        int whereEnd = setEnd;
        boolean hasWhere = setEnd < tokens.size() && tokens.get(setEnd).isWord("WHERE");
        if (setEnd < tokens.size() && !hasWhere && !isWordIn(tokens.get(setEnd), AFTER_WHERE)) {
            throw SqlLexer.refuse("UPDATE ... " + tokens.get(setEnd).text() + " is not supported: update this table"
                    + " alone, with a subquery in WHERE if you need another table", sql);
        }
        if (hasWhere) {
            whereEnd = clauseEnd(tokens, setEnd + 1, AFTER_WHERE);
            if (whereEnd == setEnd + 1) {
                throw SqlLexer.refuse("an empty WHERE", sql);
            }
        }
        for (int t = whereEnd; t < tokens.size(); t++) {
            if (tokens.get(t).depth() == 0 && tokens.get(t).isWord("RETURNING")) {
                throw SqlLexer.refuse("RETURNING is not supported (execute returns the update count)", sql);
            }
        }

        Rewriter out = new Rewriter(sql, tokens);
        if (resolvedTable == null) {
            out.copy(0, set + 1);
        } else {
            out.copy(0, tableStart).text(" " + resolvedTable).copy(set, set + 1);
        }
        if (!setsToken) {
            out.text(" " + tokenColumn + " = ?,").bind('t', 0);
        }
        out.copy(set + 1, setEnd);
        String guard = guard(writtenTable, tokenColumn, keyColumns, policy);
        if (hasWhere) {
            out.copy(setEnd, setEnd + 1).text(" (");
            out.copy(setEnd + 1, whereEnd).text(") AND " + guard);
        } else {
            out.text(" WHERE " + guard);
        }
        for (int k = 0; k < keyColumns.size(); k++) {
            out.bind('k', k);
        }
        out.bind('t', 0);
        out.copy(whereEnd, tokens.size());
        return new GuardedStatement(out.sql.toString(), writtenTable, List.copyOf(out.bindings), out.callerParameters);
    }

    /** The statement to prepare. */
    String sql() {
        return sql;
    }

    /** The table name as the statement spells it. */
    String writtenTable() {
        return writtenTable;
    }

    /**
     * The values for the rewritten statement's {@code ?}, in order.
     *
     * @throws IllegalArgumentException if {@code params} does not match the caller's {@code ?} count
     */
    List<Object> bind(List<Object> params, long token, List<Object> keyValues) {
        if (params.size() != callerParameters) {
            throw new IllegalArgumentException("the statement has " + callerParameters + " '?' parameters besides the"
                    + " token, got " + params.size() + " values");
        }
        List<Object> values = new ArrayList<>(bindings.size());
        for (Binding binding : bindings) {
            values.add(switch (binding.source()) {
                case 't' -> token;
                case 'k' -> keyValues.get(binding.index());
                default -> params.get(binding.index());
            });
        }
        return values;
    }

    private static String guard(String table, String tokenColumn, List<String> keyColumns, Policy policy) {
        StringBuilder guard = new StringBuilder();
        for (String key : keyColumns) {
            guard.append(table).append('.').append(key).append(" = ? AND ");
        }
        return guard.append(table).append('.').append(tokenColumn).append(' ').append(Sql.operator(policy)).append(" ?")
                .toString();
    }

    /** Checks each depth-0 {@code column = value} of SET; returns whether the token column is set (to the marker). */
    private static boolean checkAssignments(String sql, List<Token> tokens, int from, int to, String tokenColumn,
            List<String> keyColumns) {
        if (from >= to) {
            throw SqlLexer.refuse("SET assigns nothing", sql);
        }
        boolean setsToken = false;
        int item = from;
        for (int t = from; t <= to; t++) {
            if (t < to && !(tokens.get(t).depth() == 0 && tokens.get(t).isSymbol(","))) {
                continue;
            }
            int equals = item;
            while (equals < t && !(tokens.get(equals).depth() == 0 && tokens.get(equals).isSymbol("="))) {
                equals++;
            }
            if (equals == item || equals == t || !isColumnReference(tokens, item, equals)) {
                throw SqlLexer.refuse("write each assignment as column = value (one column each)", sql);
            }
            String column = unquote(tokens.get(equals - 1).text()).toLowerCase(Locale.ROOT);
            if (column.equals(tokenColumn.toLowerCase(Locale.ROOT))) {
                if (t - equals != 2 || tokens.get(equals + 1).kind() != Kind.MARKER) {
                    throw SqlLexer.refuse("the token column may only be set to the marker (" + tokenColumn + " = "
                            + RowGuard.TOKEN_MARKER + "), or left out: the guard sets it", sql);
                }
                setsToken = true;
            } else if (keyColumns.stream().anyMatch(key -> key.equalsIgnoreCase(column))) {
                throw SqlLexer.refuse("the key column '" + column + "' cannot be changed: the row would move past the"
                        + " new key's fence entry. Delete the row and insert the new one", sql);
            }
            item = t + 1;
        }
        return setsToken;
    }

    private static boolean isColumnReference(List<Token> tokens, int from, int to) {
        for (int t = from; t < to; t++) {
            boolean name = (t - from) % 2 == 0;
            if (name ? !isName(tokens.get(t)) : !tokens.get(t).isSymbol(".")) {
                return false;
            }
        }
        return (to - from) % 2 == 1;
    }

    private static int clauseEnd(List<Token> tokens, int from, Set<String> enders) {
        int t = from;
        while (t < tokens.size() && !(tokens.get(t).depth() == 0 && isWordIn(tokens.get(t), enders))) {
            t++;
        }
        return t;
    }

    private static boolean isWordIn(Token token, Set<String> words) {
        return token.kind() == Kind.WORD && words.contains(token.text().toUpperCase(Locale.ROOT));
    }

    private static boolean isName(Token token) {
        return token.kind() == Kind.WORD || token.kind() == Kind.QUOTED;
    }

    private static String unquote(String name) {
        char first = name.charAt(0);
        return first == '"' || first == '`' ? name.substring(1, name.length() - 1) : name;
    }

    /** Builds the rewritten text from the original's tokens (with the spaces before them) and inserted fragments. */
    private static final class Rewriter {
        private final String original;
        private final List<Token> tokens;
        private final StringBuilder sql = new StringBuilder();
        private final List<Binding> bindings = new ArrayList<>();
        private int callerParameters;

        Rewriter(String original, List<Token> tokens) {
            this.original = original;
            this.tokens = tokens;
        }

        Rewriter copy(int from, int to) {
            for (int t = from; t < to; t++) {
                Token token = tokens.get(t);
                int gapStart = t == 0 ? 0 : tokens.get(t - 1).end();
                sql.append(original, gapStart, token.start());
                if (token.kind() == Kind.MARKER) {
                    sql.append('?');
                    bind('t', 0);
                } else {
                    sql.append(token.text());
                    if (token.kind() == Kind.PARAM) {
                        bind('p', callerParameters++);
                    }
                }
            }
            return this;
        }

        Rewriter text(String fragment) {
            sql.append(fragment);
            return this;
        }

        Rewriter bind(char source, int index) {
            bindings.add(new Binding(source, index));
            return this;
        }
    }
}
