/**
 * Randomized histories of concurrent fenced writes and a checker for them.
 *
 * <p>{@link dev.fencing.testkit.history.HistoryRun} drives several store instances (separate
 * clients and caches, as separate processes would have) with writer threads that share one token
 * counter and keep using old tokens after newer ones were issued — zombies — and records every
 * operation with its invocation time, completion time and outcome. {@link
 * dev.fencing.testkit.history.HistoryChecker} then checks the recorded
 * {@link dev.fencing.testkit.history.History} against what a fenced store promises, using only
 * the real-time order of operations, so it works for any store and for histories written by the
 * CLI's torture run. Usable by anyone's store: a factory of {@link dev.fencing.core.FencedStore}s is
 * all it needs.
 */
@NullMarked
package dev.fencing.testkit.history;

import org.jspecify.annotations.NullMarked;
