package dev.fencing.testkit.history;

import org.jspecify.annotations.Nullable;

/**
 * One operation of a {@link History}: who ran it, on which key, with which token, when it was
 * invoked and when it returned, and what it returned.
 *
 * @param process the store instance that ran it (0-based)
 * @param writer the writer thread that ran it (0-based; -1 for the final reads)
 * @param key the key
 * @param kind what was called
 * @param token the fencing token presented (0 for reads)
 * @param value the value written: the argument of a write, the value an update or increment
 *     returned (its change's result); {@code null} for deletes, reads and updates that wrote nothing
 * @param outcome how it ended
 * @param observed the value a read returned ({@code null} if it returned none)
 * @param observedToken for a read, the token of the value it returned (0 for none); for a mark
 *     read, the mark (0 for none); for a refusal, the mark the exception named; for an accepted
 *     update, the token it wrote with
 * @param invokedNanos when the call started, in nanoseconds on the run's clock
 * @param completedNanos when the call returned or threw
 * @param error for {@link Outcome#UNKNOWN}, the exception's class and message; otherwise {@code null}
 */
public record Operation(int process, int writer, String key, Kind kind, long token, @Nullable String value,
        Outcome outcome, @Nullable String observed, long observedToken, long invokedNanos, long completedNanos,
        @Nullable String error) {

    /** What an operation called on the store. */
    public enum Kind {
        /** {@code write(key, value, token)} */
        WRITE,
        /** {@code update(token, key, change)} with a change that does not depend on the value read */
        UPDATE,
        /**
         * {@code update(token, key, change)} with a change that adds one to a decimal counter
         * (absent counts as 0): on a key only incremented, no accepted increment may be lost or
         * applied twice.
         */
        INCREMENT,
        /** {@code delete(key, token)} */
        DELETE,
        /** {@code read(key)} */
        READ,
        /** {@code highWaterMark(key)} */
        MARK;

        /** Whether the operation presents a token and may change the key. */
        public boolean writes() {
            return this != READ && this != MARK;
        }
    }

    /** How an operation ended. */
    public enum Outcome {
        /** Returned normally: a write was accepted, a read returned. */
        OK,
        /** Threw {@code StaleTokenException}: nothing was written. */
        STALE,
        /** Threw {@code ConcurrentUpdateException}: nothing was written. */
        CONFLICT,
        /**
         * Threw anything else (a timeout, a dropped connection): the write may or may not have
         * taken effect, at any time after its invocation.
         */
        UNKNOWN
    }

    /** Whether this write certainly took effect. */
    public boolean accepted() {
        return kind.writes() && outcome == Outcome.OK;
    }

    /** Whether this write may have taken effect (accepted, or its reply was lost). */
    public boolean mayHaveTakenEffect() {
        return kind.writes() && (outcome == Outcome.OK || outcome == Outcome.UNKNOWN);
    }

    /** Whether this operation returned before {@code other} was invoked (real-time order). */
    public boolean precedes(Operation other) {
        return outcome != Outcome.UNKNOWN && completedNanos < other.invokedNanos;
    }

    @Override
    public String toString() {
        StringBuilder line = new StringBuilder();
        line.append('[').append(invokedNanos / 1_000).append("..").append(completedNanos / 1_000).append(" µs] ")
                .append('p').append(process).append(" w").append(writer).append(' ').append(kind).append(' ')
                .append(key);
        if (kind.writes()) {
            line.append(" token ").append(token);
        }
        if (value != null) {
            line.append(" value '").append(value).append('\'');
        }
        line.append(" -> ").append(outcome);
        switch (kind) {
            case READ -> line.append(observed == null ? " (none)" : " '" + observed + "' token " + observedToken);
            case MARK -> line.append(" mark ").append(observedToken == 0 ? "(none)" : Long.toString(observedToken));
            default -> {
                if (outcome == Outcome.STALE) {
                    line.append(" (mark ").append(observedToken).append(')');
                }
            }
        }
        if (error != null) {
            line.append(" (").append(error).append(')');
        }
        return line.toString();
    }
}
