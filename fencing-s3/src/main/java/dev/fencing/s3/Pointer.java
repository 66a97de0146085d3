package dev.fencing.s3;

import dev.fencing.core.FencingToken;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The bytes the toolkit owns: a pointer naming a data object, and a tombstone. Both carry the
 * token and the random write id, so no two writes ever put the same bytes — and so never the same
 * ETag. Plain text, so a person looking at the bucket can tell what they are:
 *
 * <pre>
 * fencing-pointer/1        fencing-tombstone/1
 * token: 42                token: 43
 * write: 9f0c…             write: 51ab…
 * data: .fencing-data/…
 * </pre>
 */
final class Pointer {

    static final String CONTENT_TYPE = "text/plain; charset=utf-8";
    private static final String POINTER_HEADER = "fencing-pointer/1\n";
    private static final String DATA = "data: ";

    private Pointer() {}

    static byte[] pointer(FencingToken token, String writeId, String dataKey) {
        return (POINTER_HEADER + "token: " + token.value() + "\nwrite: " + writeId + "\n" + DATA + dataKey + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    static byte[] tombstone(FencingToken token, String writeId) {
        return ("fencing-tombstone/1\ntoken: " + token.value() + "\nwrite: " + writeId + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    static Map<String, String> pointerMetadata(FencingToken token, String writeId) {
        return Metadata.fenced(Map.of(), token, writeId, Metadata.LAYOUT, Metadata.POINTER);
    }

    /**
     * The data key a pointer names.
     *
     * @throws IllegalStateException if {@code bytes} is not a pointer
     */
    static String dataKey(String bucket, String key, byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        int at = text.indexOf("\n" + DATA);
        if (!text.startsWith(POINTER_HEADER) || at < 0 || !text.endsWith("\n")) {
            throw new IllegalStateException("the object s3://" + bucket + "/" + key + " is marked as a fencing pointer"
                    + " but its body is not one; was it written by hand?");
        }
        return text.substring(at + 1 + DATA.length(), text.length() - 1);
    }
}
