/**
 * What every provider and store is tested against, the toolkit's own and anyone else's: the contract
 * suites ({@link dev.fencing.testkit.LockProviderContract}, {@link dev.fencing.testkit.FencedStoreContract}),
 * in-memory reference implementations that pass them, and the fault helpers the contracts take
 * ({@link dev.fencing.testkit.LostReplies} over a {@link dev.fencing.testkit.ReplyDroppingProxy},
 * {@link dev.fencing.testkit.UnclearReplies}). It needs no server: start your own, or take the
 * toolkit's from {@code fencing-test-servers}. Use in test scope.
 */
@NullMarked
package dev.fencing.testkit;

import org.jspecify.annotations.NullMarked;
