package dev.fencing.postgres;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The 64-bit advisory lock key of a resource: the first 8 bytes (big-endian) of
 * SHA-256({@code "fencing:" + resource}, UTF-8). Deterministic across JVMs, versions and
 * languages, so any client that applies the same rule takes the same lock.
 *
 * <p>Two resources whose keys collide (about one pair in 2<sup>32</sup> among 2<sup>32</sup>
 * resources) share one lock: they contend, but never both hold it, and their tokens stay separate
 * (the counter is keyed by the resource name), so a collision costs waiting, never safety.
 */
public final class AdvisoryKeys {

    private AdvisoryKeys() {}

    /** The key {@code pg_advisory_lock} takes for {@code resource}. */
    public static long of(String resource) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(("fencing:" + resource).getBytes(StandardCharsets.UTF_8));
            long key = 0;
            for (int i = 0; i < 8; i++) {
                key = (key << 8) | (digest[i] & 0xff);
            }
            return key;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
