package dev.fencing.core.spi;

/**
 * A provider's delivery of release notices for one resource to this process, started for a
 * waiting acquire and stopped when it stops waiting. See
 * {@link AbstractLockProvider#watchReleases(String)}.
 */
@FunctionalInterface
public interface ReleaseWatch extends AutoCloseable {

    /** Nothing to start or stop: the provider delivers its notices anyway, or has none. */
    ReleaseWatch NONE = () -> {};

    /** Stops the delivery for this waiter; called once. Must not throw. */
    @Override
    void close();
}
