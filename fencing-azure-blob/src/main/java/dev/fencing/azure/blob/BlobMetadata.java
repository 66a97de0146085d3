package dev.fencing.azure.blob;

import dev.fencing.core.FencingToken;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The toolkit's metadata on a blob. Azure metadata names are C# identifiers (letters, digits,
 * underscores), compared without case by the service; values are ASCII. So the names have no
 * hyphen, and the lock name, any Unicode, is stored percent-encoded as UTF-8.
 *
 * <pre>
 * x-ms-meta-fencingtoken: 42
 * x-ms-meta-fencinglock: orders%2F2026+%C3%A9t%C3%A9
 * x-ms-meta-fencingwrite: 9f0c…            (a random id, unique to the write)
 * x-ms-meta-fencingdeleted: true           (a tombstone only)
 * </pre>
 */
final class BlobMetadata {

    static final String TOKEN = "fencingtoken";
    static final String LOCK = "fencinglock";
    static final String WRITE = "fencingwrite";
    static final String DELETED = "fencingdeleted";

    private BlobMetadata() {}

    /** The metadata of a write with {@code token} and {@code writeId}; a tombstone if {@code deleted}. */
    static Map<String, String> of(FencingToken token, String writeId, boolean deleted) {
        Map<String, String> metadata = Map.of(TOKEN, Long.toString(token.value()), LOCK, encodeLock(token.resource()),
                WRITE, writeId);
        if (!deleted) {
            return metadata;
        }
        return Map.of(TOKEN, metadata.get(TOKEN), LOCK, metadata.get(LOCK), WRITE, writeId, DELETED, "true");
    }

    /** {@code lock} as an ASCII metadata value; {@link #decodeLock} gives it back exactly. */
    static String encodeLock(String lock) {
        return URLEncoder.encode(lock, StandardCharsets.UTF_8);
    }

    /** The lock name stored by {@link #encodeLock}; null for null. */
    static @Nullable String decodeLock(@Nullable String stored) {
        return stored == null ? null : URLDecoder.decode(stored, StandardCharsets.UTF_8);
    }

    /**
     * The value of the toolkit's name {@code name} in {@code metadata} as a response carried it,
     * whatever the case of its name (the service compares names without case; a proxy may change
     * header names' case). Null if absent.
     *
     * @throws IllegalStateException if two spellings of the name carry different values
     */
    static @Nullable String get(@Nullable Map<String, String> metadata, String name) {
        if (metadata == null) {
            return null;
        }
        String found = null;
        String foundAs = null;
        for (Map.Entry<String, String> entry : metadata.entrySet()) {
            if (!asciiEqualsIgnoreCase(entry.getKey(), name)) {
                continue;
            }
            if (foundAs != null && !Objects.equals(found, entry.getValue())) {
                throw new IllegalStateException("the blob's metadata has '" + foundAs + "' = '" + found + "' and '"
                        + entry.getKey() + "' = '" + entry.getValue() + "': one name in two spellings with different"
                        + " values, so the fence cannot tell which to trust");
            }
            found = entry.getValue();
            foundAs = entry.getKey();
        }
        return found;
    }

    /** Name equality as the service has it: ASCII letters in any case, every other character exactly. */
    private static boolean asciiEqualsIgnoreCase(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        for (int i = 0; i < a.length(); i++) {
            if (asciiLower(a.charAt(i)) != asciiLower(b.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static char asciiLower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }
}
