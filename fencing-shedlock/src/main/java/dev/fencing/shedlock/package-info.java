/**
 * ShedLock with fencing tokens: {@link dev.fencing.shedlock.FencedShedLockProvider} runs scheduled
 * tasks under the toolkit's leases, and {@link dev.fencing.shedlock.FencedLocks#currentToken()}
 * gives the running task its token for a fenced store.
 */
@NullMarked
package dev.fencing.shedlock;

import org.jspecify.annotations.NullMarked;
