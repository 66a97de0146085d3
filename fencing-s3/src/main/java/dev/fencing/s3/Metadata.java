package dev.fencing.s3;

import dev.fencing.core.FencingToken;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
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

    /** {@code metadata} without the toolkit's keys. */
    static Map<String, String> user(Map<String, String> metadata) {
        Map<String, String> user = new HashMap<>(metadata);
        RESERVED.forEach(user::remove);
        return user;
    }

    /** Refuses caller metadata that sets one of the toolkit's keys, naming it. */
    static void requireNoReservedKeys(Map<String, String> caller) {
        for (String name : caller.keySet()) {
            if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("the request must not set the metadata key '" + name
                        + "': the fenced put writes " + RESERVED + " itself");
            }
        }
    }
}
