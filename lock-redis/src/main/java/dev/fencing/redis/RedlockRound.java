package dev.fencing.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One round of a {@link RedlockProvider} — acquire, token write-back, renewal or release — sent to
 * every node at once, and the quorum maths over its answers: per node its reply, or why it was
 * silent (failed, or no answer by the deadline). A positive reply is a yes; zero, a Redis
 * {@code nil} or a failure is not.
 */
final class RedlockRound {

    /** When {@link #onAllNodes} may stop waiting, by the count of positive and other answers so far. */
    @FunctionalInterface
    interface Enough {
        boolean settled(int yes, int no);
    }

    /** Every node answers (or the deadline passes). */
    static final Enough EVERY_NODE = (yes, no) -> false;

    private final List<RedlockNode> nodes;
    private final int quorum;
    private final List<Long> answers;
    private final String[] silence;
    private int yes;
    private int no;
    private int refused;

    private RedlockRound(List<RedlockNode> nodes, int quorum) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.answers = new ArrayList<>(Collections.nCopies(nodes.size(), null));
        this.silence = new String[nodes.size()];
    }

    /** How many of {@code nodes} nodes must agree: {@code N/2+1}. */
    static int quorumOf(int nodes) {
        return nodes / 2 + 1;
    }

    /** A majority said yes, or so many said no that a majority cannot. */
    static Enough majorityDecided(int nodes, int quorum) {
        return (yes, no) -> yes >= quorum || no > nodes - quorum;
    }

    /**
     * Runs {@code call} on every node at once and collects the answers, as they arrive, until
     * {@code enough} says the outcome is settled, every node answered, or the shared deadline
     * passed. A node that failed or did not answer by the deadline is <em>silent</em>; one that
     * was not waited for because the outcome was settled is neither silent nor answered. Every
     * call still completes in the background, in order on its node's connection.
     */
    static RedlockRound onAllNodes(List<RedlockNode> nodes, int quorum, long timeoutMillis,
            Function<RedlockNode, CompletableFuture<Long>> call, Enough enough) {
        int n = nodes.size();
        Long[] replies = new Long[n];
        Throwable[] failures = new Throwable[n];
        BlockingQueue<Integer> answered = new ArrayBlockingQueue<>(n);
        for (int i = 0; i < n; i++) {
            int index = i;
            CompletableFuture<Long> reply;
            try {
                reply = call.apply(nodes.get(i));
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
            reply.whenComplete((value, failure) -> {
                replies[index] = failure == null ? value : null;
                failures[index] = failure;
                answered.add(index); // publishes replies[index] and failures[index] to the poller
            });
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        RedlockRound round = new RedlockRound(nodes, quorum);
        // a round is short (its deadline is the node timeout) and half a round is worse than a whole
        // one — a release that stopped counting would report a lease lost, an acquire would undo
        // a grant it actually won — so an interrupt is kept for the caller, not acted on here
        boolean interrupted = false;
        boolean deadlinePassed = false;
        try {
            while (round.yes + round.no < n && !enough.settled(round.yes, round.no)) {
                Integer index;
                try {
                    index = answered.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                    continue;
                }
                if (index == null) {
                    deadlinePassed = true;
                    break;
                }
                round.record(index, replies[index], failures[index]);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (deadlinePassed) {
            round.timedOut(timeoutMillis);
        }
        return round;
    }

    private void record(int index, Long value, Throwable failure) {
        answers.set(index, value);
        if (value != null && value > 0) {
            yes++;
        } else {
            no++;
            if (failure == null) {
                refused++;
            } else {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                silence[index] = cause.getClass().getSimpleName() + ": " + cause.getMessage();
            }
        }
    }

    private void timedOut(long timeoutMillis) {
        for (int i = 0; i < silence.length; i++) {
            if (answers.get(i) == null && silence[i] == null) {
                silence[i] = "no answer within " + timeoutMillis + " ms";
            }
        }
    }

    /** Per node its reply, in the order of the nodes; null for a node silent or not waited for. */
    List<Long> answers() {
        return answers;
    }

    /** How many nodes answered yes (a positive reply). */
    int yes() {
        return yes;
    }

    /** A majority of the nodes answered yes. */
    boolean confirmed() {
        return yes >= quorum;
    }

    private long silent() {
        return Arrays.stream(silence).filter(Objects::nonNull).count();
    }

    /** So many nodes said no (rather than nothing) that a majority cannot have said yes. */
    boolean refusedByMajority() {
        return refused > nodes.size() - quorum;
    }

    /** Too few nodes answered at all for a majority to be counted. */
    boolean majoritySilent() {
        return silent() > nodes.size() - quorum;
    }

    /** Every node that did not confirm, and why: silent, answered no, or not waited for once the outcome was settled. */
    private String unconfirmedNodes() {
        List<String> named = new ArrayList<>();
        for (int i = 0; i < silence.length; i++) {
            Long answer = answers.get(i);
            if (answer == null || answer <= 0) {
                String why = silence[i] != null ? silence[i] : answer != null ? "answered no" : "not waited for";
                named.add(nodes.get(i).name() + " (" + why + ")");
            }
        }
        return String.join(", ", named);
    }

    /** The round's outcome for a message: how many confirmed, how many are needed, and every node that did not confirm. */
    String describe(String what) {
        return what + " was confirmed by " + yes + " of " + nodes.size() + " Redis nodes, Redlock needs " + quorum
                + "; not confirmed: " + unconfirmedNodes();
    }
}
