package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.LockProvider;
import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import java.time.Duration;
import java.util.Optional;

/** The Java snippets of the README's leader election and of docs/leader-election.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class LeaderSnippets {

    private LeaderSnippets() {}

    static void readme(LockProvider locks, FencedStore schedules, String plan) {
        Leadership leadership = Leadership.builder(locks, "billing-scheduler").ttl(Duration.ofSeconds(15)).start();
        // wherever the leader writes: the term's epoch goes with the write, so a paused ex-leader's is refused
        leadership.currentEpoch().ifPresent(epoch -> schedules.write(epoch, "next-run", plan));
        leadership.close();   // on shutdown: releases the lock, and the next candidate is elected at once
    }

    static Leadership guide(LockProvider locks, FencedStore schedules) {
        Leadership leadership = Leadership.builder(locks, "billing-scheduler")
                .ttl(Duration.ofSeconds(15))
                .listener(new LeadershipListener() {
                    @Override
                    public void onElected(Term term) {
                        System.out.println("leading, epoch " + term.epoch().value());
                    }

                    @Override
                    public void onRevoked(Term term, RevocationReason reason) {
                        System.out.println("term " + term.epoch().value() + " ended: " + reason);
                    }
                })
                .start();
        return leadership;
    }

    static void leaderLoop(Leadership leadership, FencedStore schedules) {
        Optional<Term> term = leadership.currentTerm();   // empty unless the term's lease is valid now
        term.ifPresent(t -> schedules.write(t.epoch(), "next-run", "run at 02:00"));
    }

    static void readComputeWrite(Leadership leadership, FencedStore totals) {
        Optional<Term> term = leadership.currentTerm();   // the term first, before anything is read
        if (term.isEmpty()) {
            return;                                        // not leading: nothing to do
        }
        long total = totals.read("daily-total").map(v -> Long.parseLong(v.value())).orElse(0L);
        totals.write(term.get().epoch(), "daily-total", Long.toString(total + 1)); // that term, not currentEpoch() now
    }
}
