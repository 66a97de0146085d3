package dev.fencing.testkit;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LockProvider;
import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The candidate in a process of its own for {@link FrozenLeaderContract}: a provider module's small
 * main builds its provider and calls {@link #run}. The candidate prints {@code ELECTED <epoch>} and
 * {@code REVOKED <epoch> <reason>}; once elected, it keeps writing with the epoch it was elected
 * with, as a leader does that checked {@code isLeader()} just before a pause: each write is a line
 * {@code WRITE <epoch>} on its standard output, which the test applies to its fenced store and
 * answers on the candidate's standard input; the candidate prints the answer as
 * {@code ANSWER <answer> leader=<isLeader()>}.
 */
public final class LeaderChild {

    private LeaderChild() {}

    /**
     * Campaigns for {@code lock} on {@code provider} and writes until its standard input ends.
     *
     * @throws IOException if standard input fails
     */
    public static void run(LockProvider provider, String lock, Duration ttl) throws IOException, InterruptedException {
        PrintStream out = System.out;
        CompletableFuture<FencingToken> firstEpoch = new CompletableFuture<>();
        Leadership leadership = Leadership.builder(provider, lock).ttl(ttl).listener(new LeadershipListener() {
            @Override
            public void onElected(Term term) {
                say(out, "ELECTED " + term.epoch().value());
                firstEpoch.complete(term.epoch());
            }

            @Override
            public void onRevoked(Term term, RevocationReason reason) {
                say(out, "REVOKED " + term.epoch().value() + " " + reason);
            }
        }).start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        FencingToken mine = firstEpoch.join();
        while (true) {
            say(out, "WRITE " + mine.value());
            String answer = in.readLine();
            if (answer == null) {
                break;
            }
            say(out, "ANSWER " + answer + " leader=" + leadership.isLeader());
            Thread.sleep(50); // pacing, so that the writes do not load a shared machine
        }
        leadership.stop();
        provider.close();
    }

    private static void say(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
