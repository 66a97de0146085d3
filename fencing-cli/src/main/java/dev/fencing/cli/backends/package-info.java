/**
 * The lock providers and fenced stores the CLI runs against: the connection options, embedded
 * servers when none is given, and the faults the torture test injects per server.
 */
package dev.fencing.cli.backends;
