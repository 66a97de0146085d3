package dev.fencing.cli.backends;

import java.util.Locale;

/** The lock providers the CLI can run. */
public enum LockKind {
    REDIS, POSTGRES, REDLOCK, ETCD, ZOOKEEPER, DYNAMODB;

    /** The name on the command line. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
