package dev.fencing.spring.leader;

import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import java.util.function.Supplier;
import org.springframework.context.ApplicationEventPublisher;

/**
 * A {@link LeadershipListener} that publishes each term as Spring application events
 * ({@link LeadershipGrantedEvent}, {@link LeadershipRevokedEvent}); the auto-configuration adds it to
 * the {@code Leadership} bean it builds. Listeners of the events run on the toolkit's worker thread:
 * keep them short.
 */
public final class SpringLeadershipEvents implements LeadershipListener {

    private final ApplicationEventPublisher publisher;
    private final Supplier<Leadership> leadership;
    private final Object terms = new Object();
    private int open; // terms granted and not yet revoked, guarded by terms

    /**
     * Publishes through {@code publisher} the terms of the leadership {@code leadership} supplies
     * (a supplier, as the listener is given to the leadership's builder before it exists).
     */
    public SpringLeadershipEvents(ApplicationEventPublisher publisher, Supplier<Leadership> leadership) {
        if (publisher == null || leadership == null) {
            throw new IllegalArgumentException("publisher and leadership must not be null");
        }
        this.publisher = publisher;
        this.leadership = leadership;
    }

    @Override
    public void onElected(Term term) {
        synchronized (terms) {
            open++;
        }
        publisher.publishEvent(new LeadershipGrantedEvent(leadership.get(), term));
    }

    @Override
    public void onRevoked(Term term, RevocationReason reason) {
        try {
            publisher.publishEvent(new LeadershipRevokedEvent(leadership.get(), term, reason));
        } finally {
            synchronized (terms) {
                open--;
                terms.notifyAll();
            }
        }
    }

    /**
     * Waits until every term published as granted was also published as revoked, up to
     * {@code timeout}: a context that stops its leadership calls it, so that the step-down reaches
     * the application's listeners before they are destroyed.
     *
     * @return whether none is left open
     */
    public boolean awaitRevoked(java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (terms) {
            while (open > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(terms, left);
            }
            return true;
        }
    }
}
