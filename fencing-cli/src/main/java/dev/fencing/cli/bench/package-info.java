/**
 * The benchmarks of {@code fencing bench}: the comparisons grouped by server, the interleaving
 * runner, and the report in text or JSON.
 */
package dev.fencing.cli.bench;
