/**
 * The benchmarks of {@code fencing bench}: the comparisons grouped by server, the interleaving
 * runner, and the report in text or JSON. A module of its own, found by the CLI through
 * {@link dev.fencing.bench.FencingBench}, so that the contenders' client libraries (Redisson,
 * Curator's recipes, AWS's DynamoDB lock client) stay off the CLI's class path.
 */
package dev.fencing.bench;
