package dev.fencing.spring.boot.autoconfigure;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** The values of {@code fencing.lock.type}, with the provider class and module each one needs. */
enum LockType {
    REDIS("dev.fencing.redis.RedisLockProvider", "lock-redis"),
    POSTGRES("dev.fencing.postgres.PostgresAdvisoryLockProvider", "lock-postgres-advisory"),
    REDLOCK("dev.fencing.redis.RedlockProvider", "lock-redis"),
    ETCD("dev.fencing.etcd.EtcdLockProvider", "lock-etcd"),
    ZOOKEEPER("dev.fencing.zookeeper.ZooKeeperLockProvider", "lock-zookeeper");

    static final String PROPERTY = "fencing.lock.type";

    private final String providerClass;
    private final String module;

    LockType(String providerClass, String module) {
        this.providerClass = providerClass;
        this.module = module;
    }

    /** The value as written in the property: lower case. */
    String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The provider class that must be on the class path. */
    String providerClass() {
        return providerClass;
    }

    /** The toolkit module ({@code dev.fencing:<module>}) that holds the provider class. */
    String module() {
        return module;
    }

    /** The allowed values, comma-separated. */
    static String allowed() {
        return Arrays.stream(values()).map(LockType::value).collect(Collectors.joining(", "));
    }

    /**
     * The type named by {@code value}, ignoring case and surrounding blanks.
     *
     * @throws IllegalArgumentException naming the property, the value and the allowed ones
     */
    static LockType of(@Nullable String value) {
        String wanted = value == null ? "" : value.strip();
        for (LockType type : values()) {
            if (type.value().equalsIgnoreCase(wanted)) {
                return type;
            }
        }
        throw new IllegalArgumentException(PROPERTY + " must be one of " + allowed() + "; got '" + value + "'");
    }
}
