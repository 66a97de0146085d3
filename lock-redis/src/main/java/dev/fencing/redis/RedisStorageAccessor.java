package dev.fencing.redis;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import dev.fencing.redis.internal.LuaScript;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link StorageAccessor} of {@link RedisFencedStore}: every write one Lua script over the
 * key's hash, with a marker key that settles a lost reply. Thread-safe.
 */
final class RedisStorageAccessor implements StorageAccessor<String> {

    private static final LuaScript WRITE = LuaScript.load("store-write");
    /** How long a write's marker outlives it: longer than any reconnect after which Lettuce re-sends. */
    static final long MARKER_SECONDS = 600;
    private static final SecureRandom WRITE_IDS = new SecureRandom();

    private final RedisClusterCommands<String, String> redis;
    private final String prefix;

    RedisStorageAccessor(RedisClusterCommands<String, String> redis, String prefix) {
        this.redis = redis;
        this.prefix = prefix;
    }

    @Override
    public boolean unanswered(RuntimeException failure) {
        if (failure instanceof RedisCommandExecutionException) {
            return false; // the server answered with an error
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisCommandTimeoutException || cause instanceof RedisConnectionException
                    || cause instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String server() {
        return "Redis (the store's connection, keys under '" + prefix + "')";
    }

    private String itemKey(String key) {
        return prefix + "{" + key + "}:item";
    }

    @Override
    public Optional<Snapshot<String>> load(String key) {
        List<KeyValue<String, String>> fields = redis.hmget(itemKey(key), "v", "t", "n", "r");
        if (!fields.get(1).hasValue()) {
            return Optional.empty();
        }
        String value = fields.get(0).hasValue() ? fields.get(0).getValue() : null;
        String resource = fields.get(3).hasValue() ? fields.get(3).getValue() : null;
        return Optional.of(new Snapshot<>(value, Long.parseLong(fields.get(1).getValue()), resource,
                fields.get(2).getValue()));
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        return run(key, value, token, policy, "*");
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<String> expected, String value, FencingToken token,
            Policy policy) {
        return run(key, value, token, policy, expected == null ? "" : expected.version());
    }

    private WriteOutcome run(String key, @Nullable String value, FencingToken token, Policy policy, String expectedVersion) {
        String marker = markerKey(key);
        String reply;
        try {
            reply = WRITE.runForText(redis, new String[] {itemKey(key), marker}, Long.toString(token.value()),
                    policy == Policy.STRICT ? "1" : "0", value == null ? "1" : "0", value == null ? "" : value,
                    expectedVersion, Long.toString(MARKER_SECONDS), token.resource());
        } catch (RedisCommandExecutionException serverError) {
            throw serverError; // the server answered with an error: the script did not write
        } catch (RedisException unclear) { // timeout, dropped connection: the script may have run
            return landed(key, marker, unclear);
        }
        if (reply.startsWith("r:")) {
            return WriteOutcome.foreign(reply.substring(2));
        }
        return switch (reply) {
            case "0" -> WriteOutcome.written();
            case "-1" -> WriteOutcome.conflict();
            default -> WriteOutcome.stale(Long.parseLong(reply));
        };
    }

    private WriteOutcome landed(String key, String marker, RedisException unclear) {
        long found;
        try {
            found = redis.exists(marker);
        } catch (RedisException alsoUnclear) {
            unclear.addSuppressed(alsoUnclear);
            throw WriteOutcomeUnknownException.of(key, unclear);
        }
        if (found == 1) {
            return WriteOutcome.written();
        }
        throw WriteOutcomeUnknownException.of(key, unclear);
    }

    private String markerKey(String key) {
        byte[] id = new byte[16];
        WRITE_IDS.nextBytes(id);
        String writeId = HexFormat.of().formatHex(id);
        if (key.charAt(0) == '}') {
            // The item's hash tag ends at the key's first '}': it is empty, so Cluster hashes the whole
            // item key. The marker must share the item's slot (one script touches both), so it is
            // named with a tag of that slot. Item keys keep their names: renaming them would hide
            // marks that older versions wrote.
            return prefix + "{" + SlotTags.forSlot(SlotHash.getSlot(itemKey(key))) + "}:done:" + writeId;
        }
        return prefix + "{" + key + "}:done:" + writeId;
    }
}
