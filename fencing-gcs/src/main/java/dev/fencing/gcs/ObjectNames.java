package dev.fencing.gcs;

import java.nio.charset.StandardCharsets;

/**
 * GCS's rules for object names, checked before any request: a name is compared byte for byte (its
 * UTF-8), so two different keys are always two objects and a key is never another spelling of one
 * (no case folding, no Unicode normalisation, no path clean-up: {@code a/./b} and {@code a/b} are
 * two objects). What GCS refuses is refused here with the rule named, since the testbench stores
 * such names and real GCS answers 400.
 */
final class ObjectNames {

    /** An object name is at most this many bytes of UTF-8. */
    static final int MAX_NAME_BYTES = 1024;

    private static final String ACME = ".well-known/acme-challenge/";

    private ObjectNames() {}

    /**
     * Requires {@code prefix}: at most {@value #MAX_NAME_BYTES} - 1 bytes of UTF-8, so that a key
     * fits after it; no carriage return or line feed; not starting {@value #ACME}.
     *
     * @throws IllegalArgumentException naming the rule and the value
     */
    static String requirePrefix(String prefix) {
        int bytes = prefix.getBytes(StandardCharsets.UTF_8).length;
        if (bytes >= MAX_NAME_BYTES) {
            throw new IllegalArgumentException("keyPrefix must be at most " + (MAX_NAME_BYTES - 1) + " bytes of UTF-8"
                    + " (an object name, prefix included, is at most " + MAX_NAME_BYTES + "), got " + bytes
                    + " bytes starting '" + prefix.substring(0, 32) + "…'");
        }
        requireNoLineBreak("keyPrefix", prefix);
        if (prefix.startsWith(ACME)) {
            throw new IllegalArgumentException("keyPrefix must not start with '" + ACME + "': GCS refuses such object"
                    + " names, got '" + prefix + "'");
        }
        return prefix;
    }

    /**
     * The object name of {@code key} under {@code prefix}.
     *
     * @throws IllegalArgumentException if GCS would refuse the name: longer than
     *     {@value #MAX_NAME_BYTES} bytes of UTF-8, {@code .} or {@code ..}, starting {@value #ACME}, or
     *     holding a carriage return or a line feed
     */
    static String of(String prefix, String key) {
        String name = prefix + key;
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("keyPrefix + key must be at most " + MAX_NAME_BYTES + " bytes of UTF-8"
                    + " (a GCS object name), got " + bytes + " bytes for key '" + key + "'");
        }
        if (name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("key must not make the object name '.' or '..', which GCS refuses, got '"
                    + key + "' under keyPrefix '" + prefix + "'");
        }
        if (name.startsWith(ACME)) {
            throw new IllegalArgumentException("keyPrefix + key must not start with '" + ACME + "', which GCS refuses,"
                    + " got key '" + key + "' under keyPrefix '" + prefix + "'");
        }
        requireNoLineBreak("key", key);
        return name;
    }

    private static void requireNoLineBreak(String what, String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '\r' || c == '\n') {
                throw new IllegalArgumentException(what + " must not contain a carriage return or a line feed, which GCS"
                        + " refuses in object names, got one at index " + i + " of '" + name.replaceAll("[\r\n]", "?") + "'");
            }
        }
    }
}
