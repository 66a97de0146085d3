package dev.fencing.build;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Bounds every test class of the build: a class still running after
 * {@code fencing.test.class-timeout} (a JUnit configuration parameter, {@code junit-platform.properties}
 * beside this class; default 10 minutes) gets a thread dump of the test JVM on standard error, and
 * then the JVM stops with exit status 3, so Surefire or Failsafe fails the module at once naming the
 * class, instead of a hang running into CI's limit.
 *
 * <p>JUnit's own {@code junit.jupiter.execution.timeout.default} bounds each test and lifecycle method,
 * but only by interrupting it: a method that ignores the interrupt, or a class of many slow methods,
 * would still run on. This listener is the bound that cannot be ignored. It is build support, added to
 * every module's test class path by the parent pom, and not part of any published artifact.
 */
public final class TestClassTimeout implements TestExecutionListener {

    static final String PARAMETER = "fencing.test.class-timeout";
    private static final Duration DEFAULT = Duration.ofMinutes(10);

    private final Map<String, ScheduledFuture<?>> running = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "fencing-test-class-timeout");
        thread.setDaemon(true);
        return thread;
    });
    private volatile Duration limit = DEFAULT;

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        limit = testPlan.getConfigurationParameters().get(PARAMETER).map(TestClassTimeout::parse).orElse(DEFAULT);
    }

    @Override
    public void executionStarted(TestIdentifier identifier) {
        if (isClass(identifier)) {
            String name = identifier.getSource().map(ClassSource.class::cast).map(ClassSource::getClassName)
                    .orElse(identifier.getDisplayName());
            long started = System.nanoTime();
            running.put(identifier.getUniqueId(), timer.schedule(() -> expire(name, started), limit.toMillis(),
                    TimeUnit.MILLISECONDS));
        }
    }

    @Override
    public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
        cancel(identifier);
    }

    @Override
    public void executionSkipped(TestIdentifier identifier, String reason) {
        cancel(identifier);
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        timer.shutdownNow();
    }

    private void cancel(TestIdentifier identifier) {
        ScheduledFuture<?> bound = running.remove(identifier.getUniqueId());
        if (bound != null) {
            bound.cancel(false);
        }
    }

    private static boolean isClass(TestIdentifier identifier) {
        return identifier.isContainer() && identifier.getSource().filter(ClassSource.class::isInstance).isPresent();
    }

    private void expire(String testClass, long startedNanos) {
        PrintStream err = System.err;
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
        err.println();
        err.println("[TestClassTimeout] test class " + testClass + " has run " + seconds + " s, past its bound of "
                + limit + " (" + PARAMETER + "): stopping the test JVM; every thread follows");
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            err.print(describe(thread));
        }
        err.println("[TestClassTimeout] " + testClass + " timed out after " + seconds + " s");
        err.flush();
        System.out.flush();
        Runtime.getRuntime().halt(3);
    }

    /** {@link ThreadInfo#toString()} cuts stacks at eight frames; a hang needs all of them. */
    private static String describe(ThreadInfo thread) {
        StringBuilder text = new StringBuilder().append('"').append(thread.getThreadName()).append("\" ")
                .append(thread.getThreadState());
        if (thread.getLockName() != null) {
            text.append(" on ").append(thread.getLockName());
        }
        if (thread.getLockOwnerName() != null) {
            text.append(" owned by \"").append(thread.getLockOwnerName()).append('"');
        }
        text.append('\n');
        for (StackTraceElement frame : thread.getStackTrace()) {
            text.append("\tat ").append(frame).append('\n');
        }
        return text.append('\n').toString();
    }

    /** A duration as JUnit writes its timeouts: {@code 10 m}, {@code 90 s}, {@code 600} (seconds). */
    static Duration parse(String value) {
        String text = value.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (text.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1).trim()));
            }
            if (text.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1).trim()));
            }
            return Duration.ofSeconds(Long.parseLong(text));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PARAMETER + " must be a whole number of seconds or minutes, such as"
                    + " '600 s' or '10 m'; got '" + value + "'", e);
        }
    }
}
