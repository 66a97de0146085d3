package dev.fencing.s3;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The last known state of objects this writer wrote, least recently used evicted first. Thread-safe. */
final class EtagCache {

    private final int capacity;
    private final Map<String, ObjectState> states;

    EtagCache(int capacity) {
        this.capacity = capacity;
        this.states = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ObjectState> eldest) {
                return size() > EtagCache.this.capacity;
            }
        };
    }

    synchronized @Nullable ObjectState get(String id) {
        return capacity == 0 ? null : states.get(id);
    }

    synchronized void put(String id, ObjectState state) {
        if (capacity > 0) {
            states.put(id, state);
        }
    }

    synchronized void remove(String id) {
        states.remove(id);
    }
}
