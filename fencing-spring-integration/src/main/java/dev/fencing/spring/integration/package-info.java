/**
 * Spring Integration with fencing tokens: {@link dev.fencing.spring.integration.FencedLockRegistry}
 * is a {@code LockRegistry} whose locks are the toolkit's leases, so that a leader elected by
 * {@code LockRegistryLeaderInitiator}, or a message handler run under a lock, can hand the lease's
 * token to a fenced store.
 */
@NullMarked
package dev.fencing.spring.integration;

import org.jspecify.annotations.NullMarked;
