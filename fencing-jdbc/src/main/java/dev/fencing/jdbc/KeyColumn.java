package dev.fencing.jdbc;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A key column whose equality the toolkit reproduces exactly, so that every spelling the database
 * treats as one row gets one fence entry: each key value is bound in a canonical form and named
 * by a canonical string. Columns whose equality cannot be reproduced (case- or accent-insensitive
 * collations, nondeterministic collations, fixed-length binary, numbers with a scale, dates) are
 * refused when the table is described.
 *
 * <p>The database also decides what it stores: an {@code INSERT} drops trailing spaces beyond
 * {@code VARCHAR(n)} (PostgreSQL, and MySQL/MariaDB in every sql_mode) and, without strict mode,
 * clamps an out-of-range integer or cuts a long string. So a key the column cannot hold as given
 * is refused before anything is written: an integer outside the type's range, text longer than
 * the column's characters ({@code maxChars}) or, for MySQL/MariaDB binary and TEXT types, bytes
 * ({@code maxBytes}, counted in UTF-8). Otherwise the row stored would be another key's row, with
 * another fence entry.
 *
 * @param description the column, its table and type, for messages
 * @param min the smallest integer the column holds (null for other kinds)
 * @param max the largest integer the column holds (null for other kinds)
 * @param maxChars the most characters the column holds, -1 if not limited by characters
 * @param maxBytes the most bytes the column holds, -1 if not limited by bytes
 */
record KeyColumn(String name, Kind kind, String description, @Nullable BigInteger min, @Nullable BigInteger max,
        long maxChars, long maxBytes) {

    /** How the database compares the column, and so how a value is made canonical. */
    enum Kind {
        /** An integer type: values compare as numbers, so "07", 7 and 7L are one key; bound as a number. */
        INTEGER,
        /** PostgreSQL {@code uuid}: bound as a {@link UUID}. */
        UUID,
        /** MariaDB {@code UUID}: bound as its canonical text. */
        UUID_TEXT,
        /** Text compared byte for byte (binary NO PAD collation, VARBINARY, a deterministic PostgreSQL collation). */
        TEXT_EXACT,
        /** Text compared byte for byte after trailing spaces (a binary PAD SPACE collation, PostgreSQL {@code char(n)}). */
        TEXT_PAD_SPACE
    }

    private static final Pattern INTEGER_TEXT = Pattern.compile("[+-]?[0-9]{1,40}");
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    /**
     * The value to bind for {@code value}: the database's own reading of it, made explicit.
     *
     * @throws IllegalArgumentException for a value of the wrong kind, or one the column cannot hold as given
     */
    Object bind(Object value) {
        return switch (kind) {
            case INTEGER -> {
                BigInteger number = integer(value);
                if (number.compareTo(min) < 0 || number.compareTo(max) > 0) {
                    throw new IllegalArgumentException("key " + value + " is outside the range of " + description + ", "
                            + min + " to " + max + ": the database would refuse it, or (MySQL/MariaDB without strict"
                            + " mode) store another key; nothing was written");
                }
                yield number.compareTo(LONG_MIN) >= 0 && number.compareTo(LONG_MAX) <= 0
                        ? (Object) number.longValue() : new BigDecimal(number); // BIGINT UNSIGNED above 2^63
            }
            case UUID -> uuid(value);
            case UUID_TEXT -> uuid(value).toString();
            case TEXT_EXACT, TEXT_PAD_SPACE -> fits(value, canonical(value));
        };
    }

    /** {@code text}, if the column holds it whole (else an INSERT would drop its trailing spaces, or more). */
    private String fits(Object value, String text) {
        long chars = maxChars < 0 ? 0 : text.codePointCount(0, text.length());
        long bytes = maxBytes < 0 ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
        boolean tooManyChars = maxChars >= 0 && chars > maxChars;
        if (tooManyChars || maxBytes >= 0 && bytes > maxBytes) {
            throw new IllegalArgumentException("key '" + value + "' is longer than " + description + " holds ("
                    + (tooManyChars ? chars + " characters, at most " + maxChars : bytes + " bytes in UTF-8, at most "
                    + maxBytes) + (kind == Kind.TEXT_PAD_SPACE ? " without trailing spaces" : "") + "): the database"
                    + " would store it cut (trailing spaces are dropped even in strict mode), as another key with"
                    + " another fence entry; nothing was written");
        }
        return text;
    }

    /** The one string every spelling of the same key maps to. */
    String canonical(Object value) {
        return switch (kind) {
            case INTEGER -> integer(value).toString();
            case UUID, UUID_TEXT -> uuid(value).toString();
            case TEXT_EXACT -> text(value);
            case TEXT_PAD_SPACE -> stripTrailingSpaces(text(value));
        };
    }

    private BigInteger integer(Object value) {
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return BigInteger.valueOf(((Number) value).longValue());
        }
        if (value instanceof BigInteger big) {
            return big;
        }
        if (value instanceof String text && INTEGER_TEXT.matcher(text).matches()) {
            return new BigInteger(text);
        }
        throw new IllegalArgumentException("key column '" + name + "' holds integers: give a Long, Integer, Short, Byte,"
                + " BigInteger or a decimal string of digits, got " + describe(value));
    }

    private UUID uuid(Object value) {
        if (value instanceof UUID uuid) {
            return uuid;
        }
        if (value instanceof String text && UUID_TEXT.matcher(text).matches()) {
            return java.util.UUID.fromString(text.toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException("key column '" + name + "' holds UUIDs: give a java.util.UUID or the form"
                + " 8-4-4-4-12 hex digits, got " + describe(value));
    }

    private String text(Object value) {
        if (value instanceof CharSequence text) {
            return text.toString();
        }
        // a number bound against a text column is compared as a number by MySQL ('07' = 7): refuse it
        throw new IllegalArgumentException("key column '" + name + "' holds text: give a String, got " + describe(value));
    }

    private static String stripTrailingSpaces(String text) {
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == ' ') {
            end--;
        }
        return text.substring(0, end);
    }

    private static String describe(Object value) {
        return value == null ? "null" : value.getClass().getSimpleName() + " '" + value + "'";
    }
}
