package dev.fencing.testkit;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log lines, written to {@code System.err} from now on, that contain a given text — for a test
 * that counts what a store or provider logged. slf4j-simple, the test logger of this project,
 * writes there. Text that names one test's key keeps parallel test classes out of each other's
 * counts.
 *
 * <pre>{@code
 * try (LogLines warnings = LogLines.containing(key)) {
 *     ...
 *     assertThat(warnings.lines()).hasSize(1);
 * }
 * }</pre>
 *
 * <p>{@code System.err} is wrapped once per JVM (again if someone replaced it since), and the wrapper
 * only copies lines aside while someone watches: everything is still printed, once.
 */
public final class LogLines implements AutoCloseable {

    private static final List<LogLines> WATCHING = new CopyOnWriteArrayList<>();
    private static final ThreadLocal<ByteArrayOutputStream> LINE = ThreadLocal.withInitial(ByteArrayOutputStream::new);
    private static final ThreadLocal<Boolean> COPYING = ThreadLocal.withInitial(() -> false);
    private static final Map<String, Raised> RAISED = new HashMap<>();
    /** slf4j-simple's number for WARN ({@code org.slf4j.spi.LocationAwareLogger.WARN_INT}). */
    private static final int WARN = 30;
    private static @Nullable PrintStream installed;

    private final String text;
    private final List<String> raised = new ArrayList<>();
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private LogLines(String text) {
        this.text = text;
    }

    /**
     * Starts collecting the lines that contain {@code text} (at least 8 characters, so that it is
     * one test's). Close it to stop.
     */
    public static LogLines containing(String text) {
        if (text == null || text.length() < 8) {
            throw new IllegalArgumentException("text must be at least 8 characters, unique to the test, got '" + text + "'");
        }
        install();
        LogLines watch = new LogLines(text);
        WATCHING.add(watch);
        return watch;
    }

    /**
     * Lets {@code loggerName}'s WARN lines through while this watch is open, also where the build
     * set that logger to ERROR (this project's builds do so for {@value dev.fencing.core.spi.Refusals#LOGGER},
     * whose thousands of lines from the history tests would drown the log); the level is put back
     * when the last watch that raised it closes.
     *
     * @return whether its WARN lines now reach {@code System.err}: false under a logging binding
     *     other than slf4j-simple (Logback, Log4j write elsewhere), where a count here says nothing
     */
    public boolean showWarningsOf(String loggerName) {
        Logger logger = LoggerFactory.getLogger(loggerName);
        if (!logger.getClass().getName().equals("org.slf4j.simple.SimpleLogger")) {
            return false;
        }
        synchronized (RAISED) {
            Raised raised = RAISED.get(loggerName);
            if (raised == null) {
                try {
                    Field level = logger.getClass().getDeclaredField("currentLogLevel");
                    level.setAccessible(true);
                    raised = new Raised(logger, level, level.getInt(logger));
                    level.setInt(logger, Math.min(raised.saved, WARN));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    return false;
                }
                RAISED.put(loggerName, raised);
            }
            raised.watches++;
            this.raised.add(loggerName);
        }
        return logger.isWarnEnabled();
    }

    /** The lines collected so far, in the order they were written. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** The collected lines logged at WARN (slf4j-simple's {@code " WARN "} level field). */
    public List<String> warnings() {
        return lines.stream().filter(line -> line.contains(" WARN ")).toList();
    }

    @Override
    public void close() {
        WATCHING.remove(this);
        synchronized (RAISED) {
            for (String loggerName : raised) {
                Raised level = RAISED.get(loggerName);
                if (level != null && --level.watches == 0) {
                    RAISED.remove(loggerName);
                    level.restore();
                }
            }
            raised.clear();
        }
    }

    /** A slf4j-simple logger's threshold, lowered to WARN, and how many watches need it so. */
    private static final class Raised {
        private final Logger logger;
        private final Field level;
        private final int saved;
        private int watches;

        Raised(Logger logger, Field level, int saved) {
            this.logger = logger;
            this.level = level;
            this.saved = saved;
        }

        void restore() {
            try {
                level.setInt(logger, saved);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("could not put back the level of " + logger.getName(), e);
            }
        }
    }

    private static synchronized void install() {
        if (System.err != installed) {
            PrintStream wrapper = new PrintStream(new LineCopier(System.err), true, StandardCharsets.UTF_8);
            System.setErr(wrapper);
            installed = wrapper;
        }
    }

    /** Forwards every byte; while someone watches, cuts the bytes of each thread into lines and copies the matching ones. */
    private static final class LineCopier extends OutputStream {
        private final PrintStream under;

        LineCopier(PrintStream under) {
            this.under = under;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            if (COPYING.get()) { // a copier of this JVM further out has these bytes already
                under.write(bytes, offset, length);
                return;
            }
            COPYING.set(true);
            try {
                under.write(bytes, offset, length);
                if (!WATCHING.isEmpty()) {
                    copy(bytes, offset, length);
                }
            } finally {
                COPYING.set(false);
            }
        }

        @Override
        public void flush() {
            under.flush();
        }

        private static void copy(byte[] bytes, int offset, int length) {
            ByteArrayOutputStream line = LINE.get();
            for (int i = offset; i < offset + length; i++) {
                if (bytes[i] == '\n') {
                    String text = line.toString(StandardCharsets.UTF_8);
                    line.reset();
                    for (LogLines watch : WATCHING) {
                        if (text.contains(watch.text)) {
                            watch.lines.add(text);
                        }
                    }
                } else {
                    line.write(bytes[i]);
                }
            }
        }
    }
}
