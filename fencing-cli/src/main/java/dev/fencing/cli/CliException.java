package dev.fencing.cli;

/** A failure the CLI reports in one line and turns into its exit code. */
public final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
