package dev.fencing.migrations;

import java.util.regex.Pattern;

/** Validation of identifiers spliced into DDL: unquoted SQL names only. */
final class Identifiers {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    private static final Pattern TABLE = Pattern.compile("(" + NAME.pattern() + "\\.)?" + NAME.pattern());

    private Identifiers() {}

    static String requireTable(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be an unquoted SQL name, optionally schema-qualified"
                    + " (letters, digits, '_', up to 63 characters each), got '" + table + "'");
        }
        return table;
    }

    static String requireColumn(String column) {
        if (column == null || !NAME.matcher(column).matches()) {
            throw new IllegalArgumentException("column must be an unquoted SQL name (letters, digits, '_', up to 63"
                    + " characters), got '" + column + "'");
        }
        return column;
    }
}
