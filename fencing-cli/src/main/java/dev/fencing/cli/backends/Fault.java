package dev.fencing.cli.backends;

/**
 * A fault the torture test can inject into a server the CLI started itself.
 *
 * @param name how it is named on the command line and in the summary
 * @param description what it does, for {@code --help} and the timeline
 * @param action injects it once
 */
public record Fault(String name, String description, Runnable action) {}
