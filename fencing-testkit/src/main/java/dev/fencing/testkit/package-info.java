/**
 * What every provider and store module tests against: the contract suites
 * ({@link dev.fencing.testkit.LockProviderContract}, {@link dev.fencing.testkit.FencedStoreContract})
 * and in-memory reference implementations that pass them. Use in test scope.
 */
@NullMarked
package dev.fencing.testkit;

import org.jspecify.annotations.NullMarked;
