package dev.fencing.core.leader;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every {@link Leadership} logs of its terms, under {@code dev.fencing.core.leader.Leadership}:
 * a win at INFO, a lost term at WARN (what happens to writes made with it), a step-down at INFO.
 */
final class LoggingLeadershipListener implements LeadershipListener {

    private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

    private final String lockName;
    private final Duration ttl;

    LoggingLeadershipListener(String lockName, Duration ttl) {
        this.lockName = lockName;
        this.ttl = ttl;
    }

    @Override
    public void onElected(Term term) {
        LOG.info("Elected leader of '{}' with epoch {}; the term lasts while its lease (TTL {} ms) is renewed.",
                lockName, term.epoch().value(), ttl.toMillis());
    }

    @Override
    public void onRevoked(Term term, RevocationReason reason) {
        if (reason == RevocationReason.LOST) {
            LOG.warn("Lost the leadership of '{}' (epoch {}): its lease ended before this candidate gave it up. Writes"
                    + " made with epoch {} are refused once a newer leader has written; campaigning again.", lockName,
                    term.epoch().value(), term.epoch().value());
        } else {
            LOG.info("Stepped down as leader of '{}' (epoch {}).", lockName, term.epoch().value());
        }
    }
}
