package dev.fencing.redis;

/**
 * The key layout of the Redis providers: {@code <prefix>{resource}:lock} and
 * {@code <prefix>{resource}:token}, one hash tag so both live in one Cluster slot, and the
 * release channel {@code <prefix>{resource}:released}.
 */
record RedisKeys(String prefix) {

    String lockKey(String resource) {
        return prefix + "{" + resource + "}:lock";
    }

    String tokenKey(String resource) {
        return prefix + "{" + resource + "}:token";
    }

    String releaseChannel(String resource) {
        return prefix + "{" + resource + "}:released";
    }

    /** Refuses a resource whose braces would break the hash tag. */
    static void checkResource(String resource) {
        if (resource.indexOf('{') >= 0 || resource.indexOf('}') >= 0) {
            throw new IllegalArgumentException("resource must not contain '{' or '}' (they delimit the Redis Cluster"
                    + " hash tag of its keys), got '" + resource + "'");
        }
    }
}
