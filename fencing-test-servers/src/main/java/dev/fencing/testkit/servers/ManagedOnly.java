package dev.fencing.testkit.servers;

/** The message for a fault refused on an external server. */
final class ManagedOnly {

    private ManagedOnly() {}

    static UnsupportedOperationException refuse(TestServer server, String fault) {
        return new UnsupportedOperationException("cannot " + fault + " " + server.describe()
                + ": the testkit did not start it (it came from a FENCING_* variable)");
    }
}
