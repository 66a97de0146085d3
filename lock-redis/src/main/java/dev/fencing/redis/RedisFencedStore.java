package dev.fencing.redis;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.StoreBuilder;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * A {@link FencedStore} on Redis, for efficiency-lock users who keep their state in Redis too.
 *
 * <p>Each key is a hash {@code <keyPrefix>{key}:item} with fields {@code v} (the value; absent in a
 * tombstone), {@code t} (the high-water mark), {@code n} (a version) and {@code r} (the resource
 * whose tokens fence the key). Every write is one Lua script that compares the token's resource
 * with {@code r} (byte for byte), the token with {@code t} (and, for {@code update}, the version
 * with {@code n}) and writes only if all hold; a delete removes {@code v} and keeps {@code t} and
 * {@code r}. Tokens
 * are compared as decimal strings (length first, then digits), never as Lua numbers, so every
 * {@code long} compares exactly — a double would call 2<sup>53</sup> and 2<sup>53</sup> + 1 equal.
 *
 * <p>Lost replies: every write carries a random 128-bit write id and leaves a marker key
 * {@code <prefix>{key}:done:<writeId>} (same hash slot, expiring after 10 minutes; for a key that
 * starts with {@code '}'}, whose item key has an empty hash tag and so is hashed whole, the marker
 * is named with a tag of the item's slot instead, so every key works on Cluster). A script that
 * Lettuce re-sends after a reconnect finds the marker of its first run and answers "written"
 * without writing again, so a change is never applied twice and a landed write is never reported
 * as refused. When the reply is lost for good (a timeout, a connection error), the store checks the
 * marker: present means written; absent means {@link WriteOutcomeUnknownException} (the script may
 * still be on its way), never a blind retry.
 *
 * <p>The store is only as durable as Redis: a restart without persistence forgets the marks
 * along with the values.
 */
public final class RedisFencedStore {

    /** The prefix of the store's keys unless configured otherwise: apart from the providers' {@code fencing:}. */
    public static final String DEFAULT_PREFIX = "fencing:store:";

    private RedisFencedStore() {}

    /**
     * A {@link Policy#MONOTONIC} store on {@code connection} (which the caller owns and closes),
     * with keys under {@value #DEFAULT_PREFIX}, telling no listener.
     */
    public static FencedStore create(StatefulRedisConnection<String, String> connection) {
        return builder(connection).build();
    }

    /**
     * A {@link Policy#MONOTONIC} store on {@code connection} (which the caller owns and closes),
     * with keys under {@code prefix} (letters, digits and {@code :_-.}), telling no listener.
     */
    public static FencedStore create(StatefulRedisConnection<String, String> connection, String prefix) {
        return builder(connection).keyPrefix(prefix).build();
    }

    /**
     * A {@link Policy#MONOTONIC} store on a Redis Cluster {@code connection} (which the caller owns
     * and closes), with keys under {@value #DEFAULT_PREFIX}, telling no listener.
     */
    public static FencedStore create(StatefulRedisClusterConnection<String, String> connection) {
        return builder(connection).build();
    }

    /**
     * A builder for a store on {@code connection} (which the caller owns and closes): keys under
     * {@value #DEFAULT_PREFIX}, {@link Policy#MONOTONIC} and no listener unless set.
     */
    public static Builder builder(StatefulRedisConnection<String, String> connection) {
        return new Builder(Checks.requireNonNull("connection", connection).sync());
    }

    /**
     * A builder for a store on a Redis Cluster {@code connection} (which the caller owns and
     * closes); each key's hash lives on the master of its slot. Keys under {@value #DEFAULT_PREFIX},
     * {@link Policy#MONOTONIC} and no listener unless set.
     */
    public static Builder builder(StatefulRedisClusterConnection<String, String> connection) {
        return new Builder(Checks.requireNonNull("connection", connection).sync());
    }

    /** Configures a {@link RedisFencedStore}; every setting but the connection is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        private final RedisClusterCommands<String, String> redis;
        private String keyPrefix = DEFAULT_PREFIX;

        private Builder(RedisClusterCommands<String, String> redis) {
            this.redis = redis;
        }

        /**
         * What every key of the store starts with: {@code <keyPrefix>{key}:item}. Up to 64 letters,
         * digits or {@code :_-.} (empty allowed); default {@value #DEFAULT_PREFIX}.
         */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || !keyPrefix.matches("[A-Za-z0-9:_.\\-]{0,64}")) {
                throw new IllegalArgumentException("keyPrefix must be up to 64 letters, digits or ':_-.', got '" + keyPrefix
                        + "'");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The store. Sends no command. */
        @Override
        public FencedStore build() {
            return storeOver(new RedisStorageAccessor(redis, keyPrefix));
        }
    }
}
