/**
 * The fencing toolkit's public API: {@link dev.fencing.core.FencingToken fencing tokens},
 * {@link dev.fencing.core.Lease leases} handed out by a {@link dev.fencing.core.LockProvider},
 * and the {@link dev.fencing.core.FencedStore} through which a store refuses writes that carry
 * an older token than one it already accepted.
 *
 * <p>A lock alone cannot keep a paused or partitioned holder from writing after its lease has
 * expired; the store's check of the token can. Every refusal is an unchecked
 * {@link dev.fencing.core.FencingException} with a message that says what happened and what
 * to do.
 */
@NullMarked
package dev.fencing.core;

import org.jspecify.annotations.NullMarked;
