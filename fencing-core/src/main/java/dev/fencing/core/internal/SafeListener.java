package dev.fencing.core.internal;

import dev.fencing.core.AcquireOutcome;
import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.StaleTokenException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wraps a listener so that an exception it throws is logged instead of breaking a lock operation. */
public final class SafeListener implements FencingListener {

    private static final Logger LOG = LoggerFactory.getLogger(SafeListener.class);

    private final FencingListener delegate;

    private SafeListener(FencingListener delegate) {
        this.delegate = delegate;
    }

    /** {@code listener}, made safe; {@link FencingListener#NONE} for {@code null}. */
    public static FencingListener of(FencingListener listener) {
        if (listener == null || listener == FencingListener.NONE) {
            return FencingListener.NONE;
        }
        return listener instanceof SafeListener ? listener : new SafeListener(listener);
    }

    @Override
    public void onGranted(Lease lease) {
        run(() -> delegate.onGranted(lease));
    }

    @Override
    public void onRenewed(Lease lease) {
        run(() -> delegate.onRenewed(lease));
    }

    @Override
    public void onReleased(Lease lease) {
        run(() -> delegate.onReleased(lease));
    }

    @Override
    public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
        run(() -> delegate.onLost(lease, reason, cause));
    }

    @Override
    public void onLost(Lease lease, String reason, @Nullable Throwable cause, Duration heldFor) {
        run(() -> delegate.onLost(lease, reason, cause, heldFor));
    }

    @Override
    public void onRenewalsFailing(Lease lease, Duration remaining, @Nullable Throwable lastFailure) {
        run(() -> delegate.onRenewalsFailing(lease, remaining, lastFailure));
    }

    @Override
    public void onStaleWriteRejected(StaleTokenException rejection) {
        run(() -> delegate.onStaleWriteRejected(rejection));
    }

    @Override
    public void onAcquireFinished(String resource, AcquireOutcome outcome, Duration waited) {
        run(() -> delegate.onAcquireFinished(resource, outcome, waited));
    }

    @Override
    public void onWriteAccepted(FencingToken token, String key) {
        run(() -> delegate.onWriteAccepted(token, key));
    }

    @Override
    public void onWriteFailed(String key, FencingException failure) {
        run(() -> delegate.onWriteFailed(key, failure));
    }

    private void run(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("fencing listener {} threw; ignored", delegate, e);
        }
    }
}
