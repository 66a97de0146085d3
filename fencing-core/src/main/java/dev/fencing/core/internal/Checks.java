package dev.fencing.core.internal;

import java.time.Duration;
import java.util.Locale;

/** Argument checks shared by every module; each names the bad value and what is allowed. */
public final class Checks {

    /** The longest resource name or store key accepted anywhere in the toolkit. */
    public static final int MAX_NAME_LENGTH = 256;

    private Checks() {}

    /**
     * Requires a resource name or key: 1 to {@value #MAX_NAME_LENGTH} characters, not blank,
     * no control characters.
     */
    public static String requireName(String what, String value) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank, got '" + value + "'");
        }
        if (value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(what + " must be at most " + MAX_NAME_LENGTH
                    + " characters, got " + value.length() + " characters starting '" + value.substring(0, 32) + "…'");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(what + " must not contain control characters, got '"
                        + value.replaceAll("\\p{Cntrl}", "?") + "' (control character at index " + i + ")");
            }
            // an unpaired surrogate has no UTF-8 form: each server would store other bytes for it, and
            // two different names could become one (or one name stop matching itself)
            boolean paired = Character.isHighSurrogate(c) ? i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1)) : !Character.isLowSurrogate(c);
            if (!paired) {
                throw new IllegalArgumentException(what + " must be well-formed Unicode (every character encodable"
                        + " in UTF-8), got an unpaired surrogate \\u" + Integer.toHexString(c).toUpperCase(Locale.ROOT)
                        + " at index " + i + " of '" + value.substring(0, i) + "…' (was a longer name cut in"
                        + " the middle of a character?)");
            }
            if (Character.isHighSurrogate(c)) {
                i++; // its low surrogate is checked: skip it
            }
        }
        return value;
    }

    /** Requires {@code min <= value <= max}. */
    public static Duration requireBetween(String what, Duration value, Duration min, Duration max) {
        requireNonNull(what, value);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(
                    what + " must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    /** Requires a non-null argument, naming it in the message. */
    public static <T> T requireNonNull(String what, T value) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        return value;
    }
}
