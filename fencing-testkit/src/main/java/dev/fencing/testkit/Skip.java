package dev.fencing.testkit;

import org.junit.jupiter.api.Assumptions;

/** Skips a test with a reason that is printed, never silently. */
public final class Skip {

    private Skip() {}

    /** Skips the calling test, printing {@code reason} to standard error. */
    public static void because(String reason) {
        System.err.println("SKIPPED: " + reason);
        Assumptions.abort(reason);
    }
}
