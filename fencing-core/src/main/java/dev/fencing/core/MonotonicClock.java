package dev.fencing.core;

/**
 * A source of monotonic time, the only time the toolkit uses for lease validity. Wall-clock
 * time can jump (NTP, leap seconds, an operator); monotonic time cannot. Inject a controllable
 * implementation in tests.
 */
@FunctionalInterface
public interface MonotonicClock {

    /** Nanoseconds from an arbitrary origin; only differences between two readings mean anything. */
    long nanoTime();

    /** {@link System#nanoTime()}. */
    static MonotonicClock system() {
        return System::nanoTime;
    }
}
