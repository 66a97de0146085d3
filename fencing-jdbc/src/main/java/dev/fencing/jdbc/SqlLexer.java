package dev.fencing.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a hand-written statement into tokens, knowing where literals, quoted identifiers and
 * parentheses begin and end, so that the guard can find the statement's clauses. What it cannot
 * read the way the database does it refuses: comments (which can hide or cut off the guard, and
 * MySQL runs {@code /*! ... *}{@code /}), backslashes inside quotes (their meaning depends on
 * {@code sql_mode} and {@code standard_conforming_strings}), PostgreSQL dollar quoting, and
 * {@code ;}. None of it is needed in one statement with bound parameters.
 */
final class SqlLexer {

    enum Kind { WORD, QUOTED, STRING, NUMBER, PARAM, MARKER, SYMBOL }

    /** One token: its text in the statement ({@code start} to {@code end}) and the parenthesis depth it sits at. */
    record Token(Kind kind, String text, int start, int end, int depth) {
        boolean isWord(String word) {
            return kind == Kind.WORD && text.equalsIgnoreCase(word);
        }

        boolean isSymbol(String symbol) {
            return kind == Kind.SYMBOL && text.equals(symbol);
        }
    }

    private static final List<String> TWO_CHAR_SYMBOLS = List.of("<=", ">=", "<>", "!=", "::", ":=", "||", "??");

    private SqlLexer() {}

    static List<Token> tokens(String sql, SqlDialect dialect, String marker) {
        List<Token> tokens = new ArrayList<>();
        int depth = 0;
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            if (sql.startsWith("--", i) || sql.startsWith("/*", i) || (c == '#' && dialect == SqlDialect.MYSQL)) {
                throw refuse("comments are not allowed: they can hide or cut off the guard", sql);
            }
            if (c == ';') {
                throw refuse("one statement only, without ';'", sql);
            }
            if (c == '$' && dialect == SqlDialect.POSTGRESQL) {
                throw refuse("'$' (dollar quoting, positional parameters) is not allowed: bind values with '?'", sql);
            }
            int start = i;
            if (c == '\'' || c == '"' || c == '`') {
                i = endOfQuoted(sql, i, c);
                tokens.add(new Token(c == '\'' ? Kind.STRING : Kind.QUOTED, sql.substring(start, i), start, i, depth));
            } else if (Character.isLetter(c) || c == '_') {
                i = endOfWord(sql, i);
                tokens.add(new Token(Kind.WORD, sql.substring(start, i), start, i, depth));
            } else if (Character.isDigit(c)) {
                while (i < sql.length() && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
                    i++;
                }
                tokens.add(new Token(Kind.NUMBER, sql.substring(start, i), start, i, depth));
            } else if (sql.startsWith(marker, i) && (i == 0 || sql.charAt(i - 1) != ':')
                    && endOfWord(sql, i + 1) == i + marker.length()) {
                i += marker.length();
                tokens.add(new Token(Kind.MARKER, marker, start, i, depth));
            } else if (c == '?' && !sql.startsWith("??", i)) {
                i++;
                tokens.add(new Token(Kind.PARAM, "?", start, i, depth));
            } else {
                String two = i + 1 < sql.length() ? sql.substring(i, i + 2) : "";
                i += TWO_CHAR_SYMBOLS.contains(two) ? 2 : 1;
                if (c == ')' && --depth < 0) {
                    throw refuse("unbalanced parentheses", sql);
                }
                tokens.add(new Token(Kind.SYMBOL, sql.substring(start, i), start, i, c == ')' ? depth + 1 : depth));
                if (c == '(') {
                    depth++;
                }
            }
        }
        if (depth != 0) {
            throw refuse("unbalanced parentheses", sql);
        }
        return tokens;
    }

    private static int endOfWord(String sql, int i) {
        while (i < sql.length() && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
            i++;
        }
        return i;
    }

    /** The index after the closing quote; a doubled quote is an escaped one. */
    private static int endOfQuoted(String sql, int open, char quote) {
        int i = open + 1;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\\') {
                throw refuse("a backslash inside quotes is read differently by different server settings; bind the value"
                        + " with '?' instead", sql);
            }
            if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        throw refuse("an unterminated " + quote + " quote", sql);
    }

    static IllegalArgumentException refuse(String why, String sql) {
        return new IllegalArgumentException("cannot fence this statement: " + why + "; got: " + sql);
    }
}
