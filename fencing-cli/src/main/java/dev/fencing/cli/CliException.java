package dev.fencing.cli;

/** A failure the CLI reports in one line and turns into its exit code. */
final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
