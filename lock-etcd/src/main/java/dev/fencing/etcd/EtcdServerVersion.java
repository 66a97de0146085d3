package dev.fencing.etcd;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an etcd server's version means for the other tenants of its cluster. Before 3.4.26 and
 * 3.5.9, any user who can grant a lease can read the names of the keys attached to another user's
 * lease through its time-to-live (CVE-2023-32082), so another tenant learns which locks are held.
 */
final class EtcdServerVersion {

    /** The oldest 3.4 release with the fix of CVE-2023-32082. */
    static final String MINIMUM_3_4 = "3.4.26";

    /** The oldest 3.5 release with the fix of CVE-2023-32082. */
    static final String MINIMUM_3_5 = "3.5.9";

    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+).*");

    private EtcdServerVersion() {}

    /**
     * The warning to log for a server of {@code version} at {@code endpoint}; empty for a release
     * with the fix, or a version this class cannot read.
     */
    static Optional<String> warning(String version, String endpoint) {
        Matcher parts = VERSION.matcher(version == null ? "" : version.strip());
        if (!parts.matches()) {
            return Optional.empty();
        }
        int major = Integer.parseInt(parts.group(1));
        int minor = Integer.parseInt(parts.group(2));
        int patch = Integer.parseInt(parts.group(3));
        boolean fixed = major > 3 || (major == 3 && (minor > 5 || (minor == 5 && patch >= 9) || (minor == 4 && patch >= 26)));
        if (fixed) {
            return Optional.empty();
        }
        return Optional.of("etcd at " + endpoint + " is version " + version.strip() + ", older than " + MINIMUM_3_4
                + " (3.4) and " + MINIMUM_3_5 + " (3.5): another user of the cluster can read the names of this"
                + " provider's lock keys through a lease's time-to-live (CVE-2023-32082). Upgrade the cluster, or"
                + " give no other tenant an account on it (docs/security.md, etcd)");
    }
}
