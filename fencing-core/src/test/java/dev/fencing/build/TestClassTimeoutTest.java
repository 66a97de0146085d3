package dev.fencing.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The build's bound on a test class ({@code .ci/junit}): a class that outlives it, even one that
 * ignores interrupts, ends its test JVM with a thread dump. Runs the class in a child JVM.
 */
class TestClassTimeoutTest {

    /** The class the child JVM runs (nested, so Surefire never picks it up itself). */
    static final class IgnoresInterrupts {
        @Test
        void sleepsThroughEveryInterrupt() {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (System.nanoTime() < end) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ignored) {
                    // the hang this bound is for: JUnit's method timeout interrupts, and nothing listens
                }
            }
        }
    }

    /** The child JVM: runs {@link IgnoresInterrupts} with a 2 s class bound and a longer method bound. */
    public static void main(String[] args) {
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(IgnoresInterrupts.class))
                .configurationParameter(TestClassTimeout.PARAMETER, "2 s")
                .configurationParameter("junit.jupiter.execution.timeout.default", "1 s").build());
        System.exit(0); // only reached if the bound did not stop the JVM
    }

    @Test
    void aClassPastItsBoundStopsTheJvmWithEveryThreadsStack() throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), TestClassTimeoutTest.class.getName()).redirectErrorStream(true)
                .start();
        long started = System.nanoTime();
        String output = readAll(child.getInputStream());
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child JVM ended; its output:%n%s", output).isTrue();
        Duration ran = Duration.ofNanos(System.nanoTime() - started);

        assertThat(child.exitValue()).as(output).isEqualTo(3);
        assertThat(output).contains("test class " + IgnoresInterrupts.class.getName() + " has run", "past its bound of PT2S")
                .contains("IgnoresInterrupts.sleepsThroughEveryInterrupt");
        assertThat(ran).as("stopped by the 2 s bound, not by the 120 s the test would sleep")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(2)).isLessThan(Duration.ofSeconds(60));
    }

    @Test
    void theBoundIsReadInSecondsOrMinutesAndAnythingElseIsRefusedNamingIt() {
        assertThat(TestClassTimeout.parse("10 m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(TestClassTimeout.parse("90 s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(TestClassTimeout.parse("600")).isEqualTo(Duration.ofSeconds(600));
        assertThatThrownBy(() -> TestClassTimeout.parse("ten minutes")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ten minutes'").hasMessageContaining(TestClassTimeout.PARAMETER);
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
