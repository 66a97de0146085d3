package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.cli.commands.BenchService;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * {@code bench} without the fencing-bench module, as on this module's class path: bad usage that
 * says where the benchmarks are and how to get them, before any option is checked or server started.
 */
class BenchWithoutModuleTest {

    @Test
    void benchSaysTheModuleIsMissingAndHowToGetIt() {
        assertThat(ServiceLoader.load(BenchService.class).findFirst()).as("no bench on this class path").isEmpty();
        for (String[] args : new String[][] {{"bench", "--quick"}, {"bench", "--only", "13"}}) {
            CliRun run = CliRun.of(args);
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.USAGE);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).startsWith("fencing bench: the benchmarks are not on the class path: they live in"
                            + " the fencing-bench module")
                    .contains("./fencing bench builds it and adds it", "mvn -pl fencing-bench -am package",
                            "fencing-bench/target/classpath.txt");
        }
    }

    @Test
    void benchHelpStillWorks() {
        CliRun run = CliRun.of("bench", "--help");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("--repeat", "--only", "fencing-bench module");
    }
}
