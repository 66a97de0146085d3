package dev.fencing.core.spi;

import dev.fencing.core.FencingListener;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.SafeListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports a refused write the same way on every path a user can write through: one WARN line on
 * the logger {@value #LOGGER} (the key, the presented token and lock, the mark — never a value or
 * a credential), then {@link FencingListener#onStaleWriteRejected} (so metrics count it). A
 * listener that throws is logged and ignored. For stores and writers.
 */
public final class Refusals {

    /** The logger every refused write is logged on, at WARN. */
    public static final String LOGGER = "dev.fencing.refused";

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private Refusals() {}

    /**
     * Logs {@code refusal} and tells {@code listener}.
     *
     * @return {@code refusal}, for {@code throw Refusals.reported(listener, ...)}
     */
    public static StaleTokenException reported(FencingListener listener, StaleTokenException refusal) {
        LOG.warn(refusal.getMessage());
        SafeListener.of(listener).onStaleWriteRejected(refusal);
        return refusal;
    }
}
