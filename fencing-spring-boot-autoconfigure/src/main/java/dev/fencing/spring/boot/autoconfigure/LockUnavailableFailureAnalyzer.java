package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockUnavailableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * A lock server that could not be reached while the application started (the provider connects at
 * start-up, a bean took a lock in its initializer): the box names the server and says what to
 * check, instead of a long stack trace with the reason five causes down.
 */
final class LockUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<LockUnavailableException> implements Ordered {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockUnavailableException cause) {
        return new FailureAnalysis("The lock server could not be reached while the application started: "
                + cause.getMessage(), "Start the lock server named above, or point the application at a running one"
                + " (fencing.lock.* for the toolkit's own settings; spring.data.redis.* or spring.datasource.* when"
                + " fencing.lock.type uses the application's Redis or DataSource), and check that this host may reach"
                + " it (firewall, TLS, credentials).", cause);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 1;
    }
}
