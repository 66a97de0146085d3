package dev.fencing.testkit;

import dev.fencing.testkit.servers.TestServer;
import org.junit.jupiter.api.Assumptions;

/** Skips a test with a reason that is printed, never silently. */
public final class Skip {

    private Skip() {}

    /** Skips the calling test, printing {@code reason} to standard error. */
    public static void because(String reason) {
        System.err.println("SKIPPED: " + reason);
        Assumptions.abort(reason);
    }

    /** Skips a fault test on a server the testkit did not start (one given by a FENCING_* variable). */
    public static void unlessManaged(TestServer server) {
        if (!server.isManaged()) {
            because("fault injection needs a server the testkit started; " + server.describe()
                    + " came from a FENCING_* variable");
        }
    }
}
