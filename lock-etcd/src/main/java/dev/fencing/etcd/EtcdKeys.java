package dev.fencing.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The etcd key layout: the lock of resource {@code r} is the key {@code <prefix>/r/lock}, and
 * the processes waiting for it stand in line as keys {@code <prefix>/r/queue/<32 hex>}. The
 * fixed suffix keeps the keys of two resources apart even when one resource name is a path
 * prefix of another ({@code a} and {@code a/lock} map to {@code p/a/lock} and
 * {@code p/a/lock/lock}). Keys are the UTF-8 bytes of the name: etcd compares bytes, so two
 * spellings of one name (Unicode NFC and NFD, letter case) are two locks, exactly as the
 * resource strings differ.
 */
public final class EtcdKeys {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.\\-]+(/[A-Za-z0-9_.\\-]+)*");

    private final String prefix;

    EtcdKeys(String prefix) {
        this.prefix = requirePrefix(prefix);
    }

    /**
     * Requires a key prefix: 1 to 64 characters, path segments of letters, digits and
     * {@code _.-} separated by single {@code /}, no leading or trailing {@code /}.
     */
    static String requirePrefix(String prefix) {
        if (prefix == null || prefix.length() > 64 || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("keyPrefix must be 1 to 64 characters of letters, digits and '_.-' in"
                    + " segments separated by single '/' (no leading or trailing '/'), got '" + prefix + "'");
        }
        return prefix;
    }

    /** The key prefix, without a trailing slash. */
    public String prefix() {
        return prefix;
    }

    /** The lock key of {@code resource}, as text. */
    public String lockKey(String resource) {
        return prefix + "/" + resource + "/lock";
    }

    /**
     * The prefix of the waiting line's ticket keys of {@code resource}
     * ({@code <prefix>/<resource>/queue/}, followed by 32 hex digits): it never ends a lock key,
     * which ends in {@code /lock}, and a ticket's fixed-length name tells it from the keys of a
     * resource whose name continues the path.
     */
    String queuePrefix(String resource) {
        return prefix + "/" + resource + "/queue/";
    }

    ByteSequence lockKeyBytes(String resource) {
        return ByteSequence.from(lockKey(resource), StandardCharsets.UTF_8);
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
