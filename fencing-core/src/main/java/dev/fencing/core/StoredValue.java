package dev.fencing.core;

/**
 * What a {@link FencedStore} holds under a key: the value and the token of the write that put it
 * there.
 *
 * @param key the key
 * @param value the value
 * @param token the token the value was written with
 */
public record StoredValue(String key, String value, long token) {}
