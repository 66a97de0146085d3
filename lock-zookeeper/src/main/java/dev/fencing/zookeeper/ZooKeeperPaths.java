package dev.fencing.zookeeper;

import org.apache.zookeeper.common.PathUtils;

/** The znode layout of the provider and the checks of the names spliced into it. */
final class ZooKeeperPaths {

    /** The name every contender's znode ends with, before ZooKeeper's 10-digit sequence suffix. */
    static final String NODE_NAME = "lock-";

    private ZooKeeperPaths() {}

    /**
     * Requires a resource name that is one path element of its own: no {@code /}, not {@code .}
     * or {@code ..}, and only characters ZooKeeper accepts in a path (it refuses U+0000–U+001F,
     * U+007F–U+009F, U+D800–U+F8FF — which holds every character outside the Basic Multilingual
     * Plane, written as a surrogate pair, and the private use area — and U+FFF0–U+FFFF).
     */
    static String checkResource(String resource) {
        if (resource.equals(".") || resource.equals("..")) {
            throw new IllegalArgumentException("resource must not be '.' or '..' (ZooKeeper refuses them as path"
                    + " elements), got '" + resource + "'");
        }
        int slash = resource.indexOf('/');
        if (slash >= 0) {
            throw new IllegalArgumentException("resource must not contain '/' (it is one ZooKeeper path element under"
                    + " the provider's root), got '" + resource + "' ('/' at index " + slash + ")");
        }
        for (int i = 0; i < resource.length(); i++) {
            char c = resource.charAt(i);
            if (c <= '\u001f' || (c >= '\u007f' && c <= '\u009f') || (c >= '\ud800' && c <= '\uf8ff') || c >= '\ufff0') {
                throw new IllegalArgumentException("resource must contain only characters ZooKeeper accepts in a path"
                        + " (not U+0000-U+001F, U+007F-U+009F, U+D800-U+F8FF — characters outside the Basic Multilingual"
                        + " Plane and the private use area — nor U+FFF0-U+FFFF), got '"
                        + resource.replaceAll("[\\p{Cntrl}\\x{10000}-\\x{10FFFF}]", "?") + "' (U+"
                        + String.format("%04X", (int) c) + " at index " + i + ")");
            }
        }
        return resource;
    }

    /** Requires an absolute ZooKeeper path without a trailing slash, not ZooKeeper's own {@code /zookeeper}. */
    static String checkRoot(String root) {
        if (root == null) {
            throw new IllegalArgumentException("keyPrefix must not be null");
        }
        try {
            PathUtils.validatePath(root);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("keyPrefix must be an absolute ZooKeeper path such as '/fencing/locks', got '"
                    + root + "': " + e.getMessage(), e);
        }
        if (root.equals("/") || root.equals("/zookeeper") || root.startsWith("/zookeeper/")) {
            throw new IllegalArgumentException("keyPrefix must be a path below '/' outside ZooKeeper's own '/zookeeper',"
                    + " got '" + root + "'");
        }
        return root;
    }

    /** The parent znode of {@code resource}'s contenders. */
    static String parent(String root, String resource) {
        return root + "/" + resource;
    }

    /**
     * The sequence number ZooKeeper appended to a contender's name (Curator's protected mode puts
     * a {@code _c_<uuid>-} prefix before {@link #NODE_NAME}); names that are not contenders' sort
     * last.
     */
    static long sequenceOf(String name) {
        int at = name.lastIndexOf(NODE_NAME);
        if (at < 0) {
            return Long.MAX_VALUE;
        }
        try {
            return Long.parseLong(name.substring(at + NODE_NAME.length()));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
