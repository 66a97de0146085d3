package dev.fencing.bench;

import dev.fencing.cli.backends.ConnectionOptions;
import dev.fencing.cli.commands.BenchService;
import java.io.PrintWriter;

/**
 * What {@code fencing bench} finds through {@link java.util.ServiceLoader} (registered in
 * {@code META-INF/services}) when this module is on the class path: {@link Benchmarks}.
 */
public final class FencingBench implements BenchService {

    /** For the service loader. */
    public FencingBench() {}

    @Override
    public int comparisons() {
        return Benchmarks.COMPARISONS;
    }

    @Override
    public int maxRepeats() {
        return Benchmarks.MAX_REPEATS;
    }

    @Override
    public void run(PrintWriter out, Request request, ConnectionOptions connections) throws Exception {
        Benchmarks.print(out, new Benchmarks(request.quick(), request.repeats(), request.only(), connections).run(),
                request.json());
    }
}
