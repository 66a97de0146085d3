package dev.fencing.cli.commands;

import dev.fencing.cli.backends.ConnectionOptions;
import java.io.PrintWriter;
import java.util.List;

/**
 * The benchmarks behind {@code fencing bench}, which live in the {@code fencing-bench} module (with
 * Redisson, Curator's recipes and AWS's DynamoDB lock client, which the CLI itself does not need).
 * {@link BenchCommand} finds an implementation with {@link java.util.ServiceLoader}: present when
 * that module's jar is on the class path, absent otherwise.
 */
public interface BenchService {

    /** The comparisons, numbered 1 to this. */
    int comparisons();

    /** The most times a comparison's measured rounds may be repeated. */
    int maxRepeats();

    /**
     * Runs the chosen comparisons, prints the report and closes every server and client it started,
     * also on failure.
     *
     * @param out where the report goes
     * @param request what to run, checked against {@link #comparisons()} and {@link #maxRepeats()}
     * @param connections the servers already running that some comparisons use
     * @throws Exception what a comparison threw; the run stops there
     */
    void run(PrintWriter out, Request request, ConnectionOptions connections) throws Exception;

    /**
     * What {@code fencing bench} asks for.
     *
     * @param quick small counts: checks the harness, not for quoting
     * @param repeats how many times each comparison's measured rounds run
     * @param only the comparisons to run, or null for all
     * @param json one JSON document instead of text
     */
    record Request(boolean quick, int repeats, List<Integer> only, boolean json) {}
}
