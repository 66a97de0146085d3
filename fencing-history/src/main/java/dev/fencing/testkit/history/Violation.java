package dev.fencing.testkit.history;

import java.util.List;

/**
 * One broken promise found in a {@link History}: which rule, on which key, and the few operations
 * that break it on their own — the minimal sub-history to look at.
 *
 * @param rule the rule broken
 * @param key the key
 * @param explanation what is wrong, in words
 * @param operations the operations that together break the rule
 */
public record Violation(Rule rule, String key, String explanation, List<Operation> operations) {

    /** Copies {@code operations}. */
    public Violation {
        operations = List.copyOf(operations);
    }

    /** What a fenced store promises, rule by rule. */
    public enum Rule {
        /** An accepted write's token is accepted by the policy against every token accepted before it started. */
        STALE_WRITE_ACCEPTED("a write was accepted with a token older than one accepted before it started"),
        /** A refusal names a mark that some write really set, that refuses the token, and that is not behind. */
        REFUSAL_MARK_WRONG("a refusal named a mark the store had not accepted, or one behind an accepted token"),
        /** The mark read never goes below a token accepted or a mark seen before the read started. */
        MARK_WENT_BACKWARDS("the mark read was lower than a token accepted or a mark seen before"),
        /** A mark read is a token some write presented. */
        MARK_NOBODY_WROTE("the mark read is a token no write presented"),
        /** A read returns a value some write wrote with that token, not one overwritten or deleted since. */
        STALE_OR_UNWRITTEN_READ("a read returned a value no write wrote with that token, or one overwritten or"
                + " deleted before the read started"),
        /** A value whose write was accepted is there until a write or delete replaces it. */
        ACCEPTED_WRITE_VANISHED("a read found nothing although an accepted write was not deleted"),
        /** Increments through update are neither lost nor applied twice. */
        INCREMENT_LOST_OR_DOUBLED("increments through update were lost or applied twice");

        private final String description;

        Rule(String description) {
            this.description = description;
        }

        /** The rule in words. */
        public String description() {
            return description;
        }
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        text.append(rule).append(" on '").append(key).append("': ").append(explanation);
        for (Operation op : operations) {
            text.append("\n    ").append(op);
        }
        return text.toString();
    }
}
