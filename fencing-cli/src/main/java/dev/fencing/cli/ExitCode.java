package dev.fencing.cli;

/** The CLI's exit codes. */
public final class ExitCode {

    /** Everything worked and every invariant held. */
    public static final int OK = 0;
    /** An invariant was violated (a lost update, an accepted token regression, a refusal that was not stale). */
    public static final int INVARIANT_VIOLATED = 1;
    /** Bad usage: an unknown option or a bad value; the message names it. */
    public static final int USAGE = 2;
    /** A server could not be reached; the message says which and how to point at another. */
    public static final int UNREACHABLE = 3;
    /** A server answered but does not keep a promise the fence rests on ({@code inspect --store s3}'s check). */
    public static final int UNSAFE_SERVER = 5;

    private ExitCode() {}
}
