package dev.fencing.s3;

import dev.fencing.core.FencingToken;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** The toolkit's user-metadata keys, and the metadata of a fenced write. */
final class Metadata {

    static final String TOKEN = "fencing-token";
    static final String DELETED = "fencing-deleted";
    static final String WRITE = "fencing-write";
    static final String LAYOUT = "fencing-layout";
    /** The resource (lock name) whose tokens fence the object, percent-encoded UTF-8: metadata is ASCII. */
    static final String RESOURCE = "fencing-resource";
    static final String POINTER = "pointer";

    private static final Set<String> RESERVED = Set.of(TOKEN, DELETED, WRITE, LAYOUT, RESOURCE);

    private Metadata() {}

    /** The caller's metadata plus the token and the write id; {@code extra} pairs after that. */
    static Map<String, String> fenced(Map<String, String> caller, FencingToken token, String writeId, String... extra) {
        Map<String, String> metadata = new HashMap<>(caller == null ? Map.of() : caller);
        metadata.put(TOKEN, Long.toString(token.value()));
        metadata.put(RESOURCE, encodeResource(token.resource()));
        metadata.put(WRITE, writeId);
        for (int i = 0; i < extra.length; i += 2) {
            metadata.put(extra[i], extra[i + 1]);
        }
        return metadata;
    }

    /** {@code resource} as an ASCII metadata value; {@link #decodeResource} gives it back exactly. */
    static String encodeResource(String resource) {
        return URLEncoder.encode(resource, StandardCharsets.UTF_8);
    }

    /** The resource stored by {@link #encodeResource}; null for null (an object written before it was kept). */
    static @Nullable String decodeResource(@Nullable String stored) {
        return stored == null ? null : URLDecoder.decode(stored, StandardCharsets.UTF_8);
    }

    /**
     * The value of the toolkit's key {@code name} in metadata as a response carried it, whatever the
     * case of its name: HTTP header names are case-insensitive, and servers differ — S3 sends
     * {@code x-amz-meta-fencing-token}, MinIO and anything behind a Go proxy
     * {@code X-Amz-Meta-Fencing-Token}, which the SDK hands over as {@code Fencing-Token}. Null if
     * absent.
     *
     * @throws IllegalStateException if two spellings of the name carry different values: which one
     *     the fence should trust cannot be told
     */
    static @Nullable String get(Map<String, String> metadata, String name) {
        String found = null;
        String foundAs = null;
        for (Map.Entry<String, String> entry : metadata.entrySet()) {
            if (!sameName(entry.getKey(), name)) {
                continue;
            }
            if (foundAs != null && !Objects.equals(found, entry.getValue())) {
                throw new IllegalStateException("the object's metadata has '" + foundAs + "' = '" + found + "' and '"
                        + entry.getKey() + "' = '" + entry.getValue() + "': one name in two spellings with different"
                        + " values, so the fence cannot tell which to trust; it was not written by this toolkit alone");
            }
            found = entry.getValue();
            foundAs = entry.getKey();
        }
        return found;
    }

    /** {@code metadata} without the toolkit's keys, in any case. */
    static Map<String, String> user(Map<String, String> metadata) {
        Map<String, String> user = new HashMap<>(metadata);
        user.keySet().removeIf(Metadata::isReserved);
        return user;
    }

    private static boolean isReserved(String name) {
        return RESERVED.stream().anyMatch(reserved -> sameName(name, reserved));
    }

    /** Header-name equality: ASCII letters in any case, every other character exactly. */
    private static boolean sameName(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        for (int i = 0; i < a.length(); i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y && asciiLower(x) != asciiLower(y)) {
                return false;
            }
        }
        return true;
    }

    private static char asciiLower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    /** Refuses caller metadata that sets one of the toolkit's keys, naming it. */
    static void requireNoReservedKeys(Map<String, String> caller) {
        for (String name : caller.keySet()) {
            if (isReserved(name)) {
                throw new IllegalArgumentException("the request must not set the metadata key '" + name
                        + "': the fenced put writes " + RESERVED + " itself");
            }
        }
    }
}
