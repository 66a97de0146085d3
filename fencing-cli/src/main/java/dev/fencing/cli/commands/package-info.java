/**
 * The picocli commands of the CLI — demo, worker, torture, check-history, inspect, bench — and the
 * options and worker logic they share. A command parses its options and delegates to
 * {@code backends} or {@code bench}.
 */
package dev.fencing.cli.commands;
