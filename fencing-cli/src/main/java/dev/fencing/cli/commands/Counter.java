package dev.fencing.cli.commands;

import java.util.Optional;

/** The counter the worker and the torture test increment: a decimal number, absent meaning 0. */
final class Counter {

    private Counter() {}

    static String increment(Optional<String> current) {
        return Long.toString(current.map(Long::parseLong).orElse(0L) + 1);
    }
}
