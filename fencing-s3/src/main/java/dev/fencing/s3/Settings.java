package dev.fencing.s3;

import dev.fencing.core.Policy;
import dev.fencing.core.internal.Checks;

/** What both fenced wrappers are configured with; built by their public builders. */
record Settings(Policy policy, int maxAttempts, int etagCacheSize, S3Layout layout, String dataPrefix) {

    static final String DEFAULT_DATA_PREFIX = ".fencing-data/";

    static Settings defaults() {
        return new Settings(Policy.MONOTONIC, 5, 10_000, S3Layout.POINTER, DEFAULT_DATA_PREFIX);
    }

    Settings withPolicy(Policy policy) {
        return new Settings(Checks.requireNonNull("policy", policy), maxAttempts, etagCacheSize, layout, dataPrefix);
    }

    Settings withMaxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > 100) {
            throw new IllegalArgumentException("maxAttempts must be between 1 and 100, got " + maxAttempts);
        }
        return new Settings(policy, maxAttempts, etagCacheSize, layout, dataPrefix);
    }

    Settings withEtagCacheSize(int etagCacheSize) {
        if (etagCacheSize < 0 || etagCacheSize > 10_000_000) {
            throw new IllegalArgumentException("etagCacheSize must be between 0 and 10000000, got " + etagCacheSize);
        }
        return new Settings(policy, maxAttempts, etagCacheSize, layout, dataPrefix);
    }

    Settings withLayout(S3Layout layout) {
        return new Settings(policy, maxAttempts, etagCacheSize, Checks.requireNonNull("layout", layout), dataPrefix);
    }

    Settings withDataPrefix(String dataPrefix) {
        Checks.requireName("dataPrefix", dataPrefix);
        return new Settings(policy, maxAttempts, etagCacheSize, layout, dataPrefix);
    }
}
