package dev.fencing.core.leader;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link LeadershipListener#all}: each listener in turn; one that throws is logged, the rest still hear the event. */
final class CompositeLeadershipListener implements LeadershipListener {

    private static final Logger LOG = LoggerFactory.getLogger(CompositeLeadershipListener.class);

    private final List<LeadershipListener> listeners;

    private CompositeLeadershipListener(List<LeadershipListener> listeners) {
        this.listeners = listeners;
    }

    static LeadershipListener of(List<? extends LeadershipListener> listeners) {
        for (int i = 0; i < listeners.size(); i++) {
            if (listeners.get(i) == null) {
                throw new IllegalArgumentException("listener " + i + " of " + listeners.size() + " is null");
            }
        }
        return new CompositeLeadershipListener(List.copyOf(listeners));
    }

    @Override
    public void onElected(Term term) {
        for (LeadershipListener listener : listeners) {
            try {
                listener.onElected(term);
            } catch (RuntimeException e) {
                LOG.warn("a leadership listener threw on the election of {}; ignored", term, e);
            }
        }
    }

    @Override
    public void onRevoked(Term term, RevocationReason reason) {
        for (LeadershipListener listener : listeners) {
            try {
                listener.onRevoked(term, reason);
            } catch (RuntimeException e) {
                LOG.warn("a leadership listener threw on the end of {}; ignored", term, e);
            }
        }
    }
}
