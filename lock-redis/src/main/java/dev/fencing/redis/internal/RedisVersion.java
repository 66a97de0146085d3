package dev.fencing.redis.internal;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Redis version the toolkit needs, checked on connect: 5.0, the first whose scripts replicate
 * their effects by default — the acquire script reads {@code TIME} before it writes, which older
 * servers refuse (or, with verbatim script replication, would replay with a replica's clock).
 */
public final class RedisVersion {

    /** The minimum version, as text. */
    public static final String MINIMUM = "5.0.0";

    private static final Pattern VERSION = Pattern.compile("(?m)^redis_version:(\\d+)\\.(\\d+)(?:\\.(\\d+))?\\s*$");

    private RedisVersion() {}

    /**
     * Checks the reply of {@code INFO server}.
     *
     * @return empty if the version is supported, else a message naming the version found and the minimum
     */
    public static Optional<String> problem(String infoServer, String where) {
        Matcher m = VERSION.matcher(infoServer == null ? "" : infoServer);
        if (!m.find()) {
            return Optional.of(where + " did not report redis_version in INFO server; the toolkit needs Redis "
                    + MINIMUM + " or newer");
        }
        int major = Integer.parseInt(m.group(1));
        String found = m.group(1) + "." + m.group(2) + (m.group(3) == null ? "" : "." + m.group(3));
        if (major < 5) {
            return Optional.of(where + " runs Redis " + found + "; the toolkit needs Redis " + MINIMUM + " or newer"
                    + " (its acquire script reads TIME before writing, which needs script effects replication)");
        }
        return Optional.empty();
    }
}
