/**
 * The lock providers and fenced stores the CLI runs against: the connection options, embedded
 * servers when none is given, and the faults the torture test injects per server. One file per
 * technology opens its lock or store ({@code RedisBackend}, {@code SqlBackend} and the others);
 * {@link dev.fencing.cli.backends.Backends} picks them by kind and closes what they opened.
 */
package dev.fencing.cli.backends;
