package dev.fencing.core;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs lease and fencing events: grants, renewals and releases at DEBUG, losses and failing
 * renewals at WARN. Refused
 * writes are logged at WARN by the writer itself (logger {@code dev.fencing.refused}), whatever the
 * listener, so this one logs them at DEBUG only.
 */
final class LoggingListener implements FencingListener {

    private static final Logger LOG = LoggerFactory.getLogger("dev.fencing");

    @Override
    public void onGranted(Lease lease) {
        LOG.debug("granted {} to owner {}", lease.token(), lease.ownerId());
    }

    @Override
    public void onRenewed(Lease lease) {
        LOG.debug("renewed {}, {} left", lease.token(), lease.remaining());
    }

    @Override
    public void onReleased(Lease lease) {
        LOG.debug("released {}", lease.token());
    }

    @Override
    public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
        LOG.warn("lease {} lost: {}", lease.token(), reason, cause);
    }

    @Override
    public void onRenewalsFailing(Lease lease, java.time.Duration remaining, @Nullable Throwable lastFailure) {
        LOG.warn("lease {}: renewals are failing and {} ms are left ({}); it is lost then unless a renewal"
                + " gets through", lease.token(), remaining.toMillis(),
                lastFailure == null ? "the last renewal is still waiting for its server" : lastFailure.toString());
    }

    @Override
    public void onStaleWriteRejected(StaleTokenException rejection) {
        LOG.debug(rejection.getMessage());
    }

    @Override
    public void onAcquireFinished(String resource, AcquireOutcome outcome, java.time.Duration waited) {
        LOG.debug("acquire of '{}' ended {} after {}", resource, outcome, waited);
    }

    @Override
    public void onWriteFailed(String key, FencingException failure) {
        LOG.warn("write of '{}' failed: {}", key, failure.getMessage());
    }
}
