package dev.fencing.propagation;

import java.util.Optional;

/**
 * The test services' compare-and-set body: the value the client read (or none) and the value it
 * computed, in one string: {@code "0:" + next} or {@code "1:" + expected.length() + ":" + expected + next}.
 */
public record CasBody(Optional<String> expected, String next) {

    /** The body as one string. */
    public String encode() {
        return expected.map(e -> "1:" + e.length() + ":" + e + next).orElse("0:" + next);
    }

    /** The body in {@code text}. */
    public static CasBody decode(String text) {
        if (text.startsWith("0:")) {
            return new CasBody(Optional.empty(), text.substring(2));
        }
        int colon = text.indexOf(':', 2);
        int length = Integer.parseInt(text.substring(2, colon));
        String expected = text.substring(colon + 1, colon + 1 + length);
        return new CasBody(Optional.of(expected), text.substring(colon + 1 + length));
    }

    /** Thrown inside the store's update when the item is no longer what the client read. */
    public static final class Changed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Changed() {
            super("the item changed since the client read it", null, false, false);
        }
    }

    /** Thrown inside the store's update to read the value after the store checked the token. */
    public static final class Peeked extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Optional<String> value;

        public Peeked(Optional<String> value) {
            super("peeked", null, false, false);
            this.value = value;
        }

        public Optional<String> value() {
            return value;
        }
    }
}
