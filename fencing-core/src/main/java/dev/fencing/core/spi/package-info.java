/**
 * For implementers of providers and stores: the lease state machine, the wait loop, the lease
 * watchdog, and the fenced-store algorithm written once over a store's conditional primitive.
 * A provider implements one acquisition attempt, renew and release; a store implements
 * {@link dev.fencing.core.spi.StorageAccessor}.
 */
@NullMarked
package dev.fencing.core.spi;

import org.jspecify.annotations.NullMarked;
