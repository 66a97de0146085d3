package dev.fencing.spring.leader;

import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import org.springframework.context.ApplicationEvent;

/**
 * A term of a {@link Leadership} bean ended: lost (its lease ran out or was taken) or stepped down
 * from. Published on a toolkit worker thread after the term's {@link LeadershipGrantedEvent}. Writes
 * already made with the term's epoch are refused only once a newer leader has written.
 */
public final class LeadershipRevokedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final transient Term term;
    private final RevocationReason reason;

    /** An event for the end of {@code term} of {@code leadership}, for {@code reason}. */
    public LeadershipRevokedEvent(Leadership leadership, Term term, RevocationReason reason) {
        super(leadership);
        this.term = term;
        this.reason = reason;
    }

    /** The leadership whose term ended. */
    public Leadership leadership() {
        return (Leadership) getSource();
    }

    /** The term that ended. */
    public Term term() {
        return term;
    }

    /** Why it ended. */
    public RevocationReason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "LeadershipRevokedEvent[" + leadership().lockName() + ", " + term + ", " + reason + "]";
    }
}
