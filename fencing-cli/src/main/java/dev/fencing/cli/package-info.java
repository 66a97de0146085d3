/**
 * The {@code fencing} command line: {@link dev.fencing.cli.FencingCli}, its exit codes, errors and
 * JSON output. The commands are in {@code commands}, the servers they run against in
 * {@code backends}, the benchmarks in {@code bench}.
 */
package dev.fencing.cli;
