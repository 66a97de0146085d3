package dev.fencing.cli;

/** The CLI's exit codes. */
final class ExitCode {

    /** Everything worked and every invariant held. */
    static final int OK = 0;
    /** An invariant was violated (a lost update, an accepted token regression, a refusal that was not stale). */
    static final int INVARIANT_VIOLATED = 1;
    /** Bad usage: an unknown option or a bad value; the message names it. */
    static final int USAGE = 2;
    /** A server could not be reached; the message says which and how to point at another. */
    static final int UNREACHABLE = 3;
    /** A server answered but does not keep a promise the fence rests on ({@code inspect --store s3}'s check). */
    static final int UNSAFE_SERVER = 5;

    private ExitCode() {}
}
