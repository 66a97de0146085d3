/**
 * Leader election on any {@link dev.fencing.core.LockProvider}: a {@link dev.fencing.core.leader.Leadership}
 * campaigns for one lock, and each term of office carries the lease's fencing token as its epoch, so
 * that fenced stores refuse the writes of a leader that was paused past its term.
 *
 * <p>Built on the public API alone ({@code acquireAsync}, auto-renewed leases, lease validity), it
 * works the same on every provider; it lives in a package of its own because it is a recipe over
 * the API, not part of the API a provider or store implements.
 */
@NullMarked
package dev.fencing.core.leader;

import org.jspecify.annotations.NullMarked;
