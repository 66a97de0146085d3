package dev.fencing.spring.leader;

import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.Term;
import org.springframework.context.ApplicationEvent;

/**
 * This instance was elected: published for each term a {@link Leadership} bean wins, on a toolkit
 * worker thread, before the term's {@link LeadershipRevokedEvent}. The event reports, it does not
 * decide: check {@link Term#isValid()} before acting, and fence writes with {@link Term#epoch()}.
 */
public final class LeadershipGrantedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final transient Term term;

    /** An event for {@code term} of {@code leadership}. */
    public LeadershipGrantedEvent(Leadership leadership, Term term) {
        super(leadership);
        this.term = term;
    }

    /** The leadership that won. */
    public Leadership leadership() {
        return (Leadership) getSource();
    }

    /** The term won; its epoch is the token to write with. */
    public Term term() {
        return term;
    }

    @Override
    public String toString() {
        return "LeadershipGrantedEvent[" + leadership().lockName() + ", " + term + "]";
    }
}
