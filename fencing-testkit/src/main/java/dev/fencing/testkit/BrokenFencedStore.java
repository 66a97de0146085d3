package dev.fencing.testkit;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A deliberately broken {@link FencedStore} that ignores tokens and versions — an ordinary
 * key-value store with a token column nobody checks. It exists to prove that
 * {@link FencedStoreContract} catches such a store; never use it otherwise.
 */
public final class BrokenFencedStore implements FencedStore {

    private final ConcurrentHashMap<String, StoredValue> items = new ConcurrentHashMap<>();

    @Override
    public void write(FencingToken token, String key, String value) {
        items.put(key, new StoredValue(key, value, token.value()));
    }

    @Override
    public Optional<StoredValue> read(String key) {
        return Optional.ofNullable(items.get(key));
    }

    @Override
    public StoredValue update(FencingToken token, String key, Function<Optional<String>, String> change) {
        String next = change.apply(read(key).map(StoredValue::value));
        StoredValue value = new StoredValue(key, next, token.value());
        items.put(key, value);
        return value;
    }

    @Override
    public void delete(FencingToken token, String key) {
        items.remove(key);
    }

    @Override
    public OptionalLong highWaterMark(String key) {
        StoredValue value = items.get(key);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value.token());
    }

    @Override
    public Policy policy() {
        return Policy.MONOTONIC;
    }
}
