package dev.fencing.cli.commands;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;

import java.util.List;
import java.util.ServiceLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Benchmarks every provider and store against the best alternative and the physical floor, side
 * by side in one process, interleaved, after warm-up, on servers it starts itself — except that
 * {@code --dynamodb-endpoint} and {@code --s3-endpoint} (or their variables) point comparison 6,
 * {@code --etcd-endpoints} comparison 9 and {@code --zookeeper-connect} comparison 10 at servers
 * already running; the other connection options are not used. The command checks its options and
 * hands the run to the {@link BenchService} of the {@code fencing-bench} module, found on the class
 * path; without that module it says how to get it (exit 2). A CLI command
 * rather than JMH: every comparison needs real servers and several client libraries in one JVM
 * with interleaved rounds, which is this harness's whole job; JMH would add a forked JVM per
 * benchmark and no way to interleave contenders.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Benchmarks: each provider and store against the best alternative and the raw floor.",
                "Side by side in one process, interleaved rounds after warm-up; medians, p99 and ratios to the baseline.",
                "Starts its own servers; only --dynamodb-endpoint and --s3-endpoint (comparisons 6 and 12), --etcd-endpoints (9)"
                        + " and --zookeeper-connect (10) are used.",
                "Needs the fencing-bench module on the class path: ./fencing adds it from a checkout."})
public final class BenchCommand extends FencingCommand {

    @Option(names = "--quick", description = "Small counts (well under 3 minutes): checks the harness, not for quoting.")
    boolean quick;

    @Option(names = "--repeat", paramLabel = "N",
            description = "Run each comparison's measured rounds N times (1-20) after one warm-up and report the median"
                    + " ratio with its min and max; default 3, or 1 with --quick.")
    Integer repeat;

    @Option(names = "--only", split = ",", paramLabel = "N",
            description = "Run only these comparisons (1-13); default all.")
    List<Integer> only;

    /** What {@code bench} says, exit 2, when the fencing-bench module is not on the class path. */
    static final String NO_BENCH = "the benchmarks are not on the class path: they live in the fencing-bench module"
            + " (with Redisson, Curator's recipes and AWS's DynamoDB lock client), which the CLI does not carry."
            + " From a checkout, ./fencing bench builds it and adds it; elsewhere build it with"
            + " 'mvn -pl fencing-bench -am package' and add fencing-bench/target/fencing-bench-*.jar and the"
            + " entries of fencing-bench/target/classpath.txt to the class path.";

    @Override
    public Integer call() throws Exception {
        BenchService bench = ServiceLoader.load(BenchService.class).findFirst()
                .orElseThrow(() -> new CliException(ExitCode.USAGE, NO_BENCH));
        if (only != null) {
            only.stream().filter(n -> n < 1 || n > bench.comparisons()).findFirst().ifPresent(n -> {
                throw new CliException(ExitCode.USAGE, "--only: there is no comparison " + n + "; they are numbered 1 to "
                        + bench.comparisons());
            });
        }
        int repeats = repeat != null ? repeat : quick ? 1 : 3;
        if (repeats < 1 || repeats > bench.maxRepeats()) {
            throw new CliException(ExitCode.USAGE, "--repeat must be between 1 and " + bench.maxRepeats()
                    + " (times each comparison runs), got " + repeats);
        }
        bench.run(out(), new BenchService.Request(quick, repeats, only, json), connections);
        return ExitCode.OK;
    }
}
