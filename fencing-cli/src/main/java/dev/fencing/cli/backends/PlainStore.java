package dev.fencing.cli.backends;

import java.util.Optional;

/** The same storage without the token check: what the demo's unfenced run writes through. */
public interface PlainStore {

    Optional<String> read(String key);

    void write(String key, String value);
}
