package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Model checks of the token schemes ({@code src/test/spin/*.pml}): for each model and
 * variant, {@code spin -a -D...}, {@code gcc -DSAFETY pan.c}, {@code ./pan}, then: a variant whose
 * assumptions hold must finish a full state-space search with {@code errors: 0} (never cut short
 * by the depth bound or the memory limit); a variant that drops an assumption must end in an
 * assertion violation, so the models can fail. Without {@code spin} or {@code gcc} on the PATH the
 * test fails (Debian packages {@code spin} and {@code gcc}; {@code .ci/run} installs spin).
 */
class TokenSchemeModelsTest {

    private static final Path MODELS = Path.of("src", "test", "spin");
    private static final long STEP_TIMEOUT_SECONDS = 120;

    /** One spin run: the model, its -D switches, and whether the property must hold. */
    private record Variant(String model, List<String> defines, boolean holds, String why) {
        String name() {
            return model + (defines.isEmpty() ? "" : " " + String.join(" ", defines));
        }
    }

    private static final List<Variant> VARIANTS = List.of(
            new Variant("redis-token.pml", List.of(), true, "max(counter+1, TIME), restarts take >= 1 µs, <= 1 grant per µs"),
            new Variant("redis-token.pml", List.of("-DBURST=2"), true, "bursts of 3 grants per µs, restarts take >= 3 µs"),
            new Variant("redis-token.pml", List.of("-DINCR_ONLY"), false, "old scheme: INCR, seeded only when missing"),
            new Variant("redis-token.pml", List.of("-DCLOCK_BACK"), false, "the new server's clock is behind the old one"),
            new Variant("redis-token.pml", List.of("-DBURST=2", "-DSHORT_RESTART"), false, "restart shorter than the burst"),
            new Variant("redlock-token.pml", List.of(), true, "3 nodes, skew 1 µs, restarts take 2 µs, write-back"),
            new Variant("redlock-token.pml", List.of("-DSKEW=0"), true, "synchronized clocks"),
            new Variant("redlock-token.pml", List.of("-DNO_WRITEBACK"), false, "no write-back of the max"),
            new Variant("redlock-token.pml", List.of("-DINCR_ONLY"), false, "INCR-only nodes restored from old data"),
            new Variant("redlock-token.pml", List.of("-DSHORT_RESTART"), false, "restart not longer than the clock skew"),
            new Variant("redlock-token.pml", List.of("-DOVERLAP"), false, "two grant rounds overlap (a double grant)"),
            new Variant("redlock-token.pml", List.of("-DOVERLAP", "-DSKEW=0"), false, "overlapping rounds, synchronized clocks"));

    private static final Pattern ERRORS = Pattern.compile("errors: (\\d+)");
    private static final Pattern SUMMARY = Pattern.compile(
            "(depth reached|states, stored|transitions|elapsed time|assertion violated|error:|Warning|out of memory)");

    private static final ExecutorService POOL = Executors.newFixedThreadPool(2);

    @AfterAll
    static void stopPool() {
        POOL.shutdownNow();
    }

    @TestFactory
    Stream<DynamicTest> everyModelVariant() {
        requireTool(List.of("spin", "-V"), "spin",
                "install the Debian package `spin` (apt-get install -y spin; .ci/run installs it when missing)");
        requireTool(List.of("gcc", "--version"), "gcc", "install the Debian package `gcc`");
        // all variants start now, two at a time; each dynamic test waits for its own
        List<Future<Outcome>> runs = new ArrayList<>();
        for (Variant v : VARIANTS) {
            runs.add(POOL.submit(() -> check(v)));
        }
        return VARIANTS.stream().map(v -> DynamicTest.dynamicTest(
                (v.holds() ? "holds: " : "fails: ") + v.name() + " (" + v.why() + ")",
                () -> verdict(v, runs.get(VARIANTS.indexOf(v)))));
    }

    private record Outcome(String output, long millis) {}

    private static void verdict(Variant v, Future<Outcome> run) throws Exception {
        Outcome outcome;
        try {
            outcome = run.get(3 * STEP_TIMEOUT_SECONDS + 30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(v.name() + ": " + e.getCause().getMessage(), e.getCause());
        }
        String out = outcome.output();
        List<String> summary = out.lines().filter(l -> SUMMARY.matcher(l).find()).map(String::strip).toList();
        System.out.printf("[spin] %s (%s) -> %s, %d ms%n  %s%n", v.name(), v.why(),
                v.holds() ? "must hold" : "must fail", outcome.millis(), String.join("\n  ", summary));
        Matcher errors = ERRORS.matcher(out);
        if (!errors.find()) {
            fail("%s: pan printed no error count:%n%s", v.name(), out);
        }
        int count = Integer.parseInt(errors.group(1));
        assertThat(out).as("%s: pan ran out of memory:%n%s", v.name(), out).doesNotContain("out of memory")
                .doesNotContain("MEMLIM");
        if (v.holds()) {
            assertThat(count).as("%s: the property must hold, but pan found a counterexample:%n%s", v.name(), out)
                    .isZero();
            assertThat(out).as("%s: the search was cut short by the depth bound (raise pan -m):%n%s", v.name(), out)
                    .doesNotContain("max search depth too small");
            assertThat(out).as("%s: not a full state-space search:%n%s", v.name(), out)
                    .contains("Full statespace search for:")
                    .doesNotContain("Search not completed");
        } else {
            assertThat(count).as("%s drops an assumption: the property must fail, but pan found no violation:%n%s",
                    v.name(), out).isPositive();
            assertThat(out).as("%s: the failure must be the property's assertion:%n%s", v.name(), out)
                    .contains("assertion violated");
        }
    }

    /** Runs spin, gcc and pan on one variant in its own temporary directory. */
    private static Outcome check(Variant v) throws Exception {
        long start = System.nanoTime();
        Path dir = Files.createTempDirectory("spin-" + v.model().replace(".pml", "") + "-");
        try {
            Files.copy(MODELS.resolve(v.model()), dir.resolve(v.model()));
            List<String> spin = new ArrayList<>(List.of("spin", "-a"));
            spin.addAll(v.defines());
            spin.add(v.model());
            run(dir, spin);
            // -O0: for the largest search here (1.2M states) gcc -O2 costs more CPU than it saves
            run(dir, List.of("gcc", "-O0", "-w", "-DSAFETY", "-DMEMLIM=1024", "-o", "pan", "pan.c"));
            // -w21: a 2^21-slot hash table (enough here; pan's default 2^24 costs 128 MB to clear)
            String out = run(dir, List.of("./pan", "-m10000", "-w21"));
            return new Outcome(out, (System.nanoTime() - start) / 1_000_000);
        } finally {
            deleteTree(dir);
        }
    }

    /** Runs a command in dir with a timeout; its combined output, or an exception naming it. */
    private static String run(Path dir, List<String> command) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "out-", ".txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException(String.join(" ", command) + " did not finish within "
                        + STEP_TIMEOUT_SECONDS + " s and was killed");
            }
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        // pan exits 0 also when it found errors; spin and gcc must succeed
        if (p.exitValue() != 0 && !command.get(0).equals("./pan")) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ":\n" + out);
        }
        return out;
    }

    private static void requireTool(List<String> probe, String tool, String remedy) {
        try {
            Process p = new ProcessBuilder(probe).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("`%s` did not answer within 30 s", String.join(" ", probe));
            }
        } catch (IOException e) {
            fail("`%s` is not on the PATH; the token-scheme models need it: %s (%s)", tool, remedy, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted while looking for %s", tool);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
