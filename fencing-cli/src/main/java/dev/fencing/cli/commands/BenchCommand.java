package dev.fencing.cli.commands;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;

import dev.fencing.cli.bench.Benchmarks;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Benchmarks every provider and store against the best alternative and the physical floor, side
 * by side in one process, interleaved, after warm-up, on servers it starts itself — except that
 * {@code --dynamodb-endpoint} and {@code --s3-endpoint} (or their variables) point comparison 6,
 * {@code --etcd-endpoints} comparison 9 and {@code --zookeeper-connect} comparison 10 at servers
 * already running; the other connection options are not used. The command checks its options and
 * hands the run to {@link Benchmarks}. A CLI command
 * rather than JMH: every comparison needs real servers and several client libraries in one JVM
 * with interleaved rounds, which is this harness's whole job; JMH would add a forked JVM per
 * benchmark and no way to interleave contenders.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Benchmarks: each provider and store against the best alternative and the raw floor.",
                "Side by side in one process, interleaved rounds after warm-up; medians, p99 and ratios to the baseline.",
                "Starts its own servers; only --dynamodb-endpoint and --s3-endpoint (comparisons 6 and 12), --etcd-endpoints (9)"
                        + " and --zookeeper-connect (10) are used."})
public final class BenchCommand extends FencingCommand {

    @Option(names = "--quick", description = "Small counts (well under 3 minutes): checks the harness, not for quoting.")
    boolean quick;

    @Option(names = "--repeat", paramLabel = "N",
            description = "Run each comparison's measured rounds N times (1-20) after one warm-up and report the median"
                    + " ratio with its min and max; default 3, or 1 with --quick.")
    Integer repeat;

    @Option(names = "--only", split = ",", paramLabel = "N",
            description = "Run only these comparisons (1-12); default all.")
    List<Integer> only;

    @Override
    public Integer call() throws Exception {
        if (only != null) {
            only.stream().filter(n -> n < 1 || n > Benchmarks.COMPARISONS).findFirst().ifPresent(n -> {
                throw new CliException(ExitCode.USAGE, "--only: there is no comparison " + n + "; they are numbered 1 to "
                        + Benchmarks.COMPARISONS);
            });
        }
        int repeats = repeat != null ? repeat : quick ? 1 : 3;
        if (repeats < 1 || repeats > Benchmarks.MAX_REPEATS) {
            throw new CliException(ExitCode.USAGE, "--repeat must be between 1 and " + Benchmarks.MAX_REPEATS
                    + " (times each comparison runs), got " + repeats);
        }
        Benchmarks.print(out(), new Benchmarks(quick, repeats, only, connections).run(), json);
        return ExitCode.OK;
    }
}
