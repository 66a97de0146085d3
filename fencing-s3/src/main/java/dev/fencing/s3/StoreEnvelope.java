package dev.fencing.s3;

import java.nio.charset.StandardCharsets;

/**
 * The body {@link S3FencedStore} writes: one header line with the token and a random write id, then
 * the value as UTF-8. The header makes every write's bytes — and so its ETag — unique, even when two
 * holders store the same value:
 *
 * <pre>
 * fencing-store/1 token=42 write=9f0c…
 * the value
 * </pre>
 */
final class StoreEnvelope {

    private static final String HEADER = "fencing-store/1 ";

    private StoreEnvelope() {}

    static byte[] encode(long token, String writeId, String value) {
        return (HEADER + "token=" + token + " write=" + writeId + "\n" + value).getBytes(StandardCharsets.UTF_8);
    }

    /** The value in {@code body}; a body without the header (written by another tool) is the value itself. */
    static String decode(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        return text.startsWith(HEADER) && newline >= 0 ? text.substring(newline + 1) : text;
    }
}
