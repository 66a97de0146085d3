package dev.fencing.testkit;

import org.junit.jupiter.api.Assumptions;

/** Skips a test with a reason that is printed, never silently. */
public final class Skip {

    private Skip() {}

    /**
     * Skips the calling test on a developer's machine, printing {@code reason}; under
     * {@code CI=true}, where {@code .ci/run} installs what the tests need, fails it instead, so a
     * check that could not run is never taken for one that passed.
     *
     * @throws IllegalStateException under {@code CI=true}
     */
    public static void unlessCi(String reason) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new IllegalStateException(reason + " (CI=true: .ci/run installs what this test needs, so it fails"
                    + " rather than skips)");
        }
        because(reason);
    }

    /** Skips the calling test, printing {@code reason} to standard error. */
    public static void because(String reason) {
        System.err.println("SKIPPED: " + reason);
        Assumptions.abort(reason);
    }
}
