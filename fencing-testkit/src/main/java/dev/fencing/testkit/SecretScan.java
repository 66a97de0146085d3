package dev.fencing.testkit;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit extension that fails a test class whose log output names a secret: from before its first
 * test to after its last, everything written to {@code System.out} and {@code System.err} (where
 * slf4j-simple, the test logger of this project, writes) is copied aside, still printed, and
 * searched for each secret once the class is done. Secrets are passwords, URI credentials and
 * key-store passphrases the class's servers and clients use; the failure quotes the offending line
 * with the secret masked, so the report leaks nothing either.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final SecretScan secrets = SecretScan.of(() -> List.of(PASSWORD));
 * }</pre>
 *
 * <p>Captures output at the level the build logs at (slf4j-simple's default, INFO). Test classes
 * that run in parallel in one JVM share {@code System.err}: use it in classes that run alone.
 */
public final class SecretScan implements BeforeAllCallback, AfterAllCallback {

    private final Supplier<? extends Collection<String>> secrets;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private @Nullable PrintStream originalOut;
    private @Nullable PrintStream originalErr;

    private SecretScan(Supplier<? extends Collection<String>> secrets) {
        this.secrets = secrets;
    }

    /** A scan for the secrets {@code secrets} gives when the class ends (each at least 8 characters). */
    public static SecretScan of(Supplier<? extends Collection<String>> secrets) {
        if (secrets == null) {
            throw new IllegalArgumentException("secrets must not be null");
        }
        return new SecretScan(secrets);
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        originalOut = System.out;
        originalErr = System.err;
        System.setOut(tee(originalOut));
        System.setErr(tee(originalErr));
    }

    private PrintStream tee(PrintStream original) {
        return new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                synchronized (captured) {
                    captured.write(b);
                }
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                original.write(bytes, offset, length);
                synchronized (captured) {
                    captured.write(bytes, offset, length);
                }
            }

            @Override
            public void flush() {
                original.flush();
            }
        }, true, StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (originalOut != null) {
            System.out.flush();
            System.setOut(originalOut);
        }
        if (originalErr != null) {
            System.err.flush();
            System.setErr(originalErr);
        }
        assertNoSecretIn(captured(), "the log output of " + context.getDisplayName());
    }

    /**
     * Every {@code toString} (class and message) of {@code failure}, its causes and its suppressed
     * exceptions, one per line: what a log line or an error report could show of it.
     */
    public static String chainOf(Throwable failure) {
        StringBuilder all = new StringBuilder();
        java.util.Deque<Throwable> todo = new java.util.ArrayDeque<>(List.of(failure));
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        while (!todo.isEmpty()) {
            Throwable next = todo.pop();
            if (seen.add(next)) {
                all.append(next).append('\n');
                Throwable cause = next.getCause();
                if (cause != null) {
                    todo.push(cause);
                }
                for (Throwable suppressed : next.getSuppressed()) {
                    todo.push(suppressed);
                }
            }
        }
        return all.toString();
    }

    /** What was written so far. */
    public String captured() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    /**
     * Fails if {@code text} contains one of the secrets, quoting its line with the secret masked.
     *
     * @throws AssertionError naming {@code where} and the masked line
     */
    public void assertNoSecretIn(String text, String where) {
        List<String> leaks = new ArrayList<>();
        for (String secret : secrets.get()) {
            if (secret.length() < 8) {
                throw new IllegalArgumentException("a secret to scan for must have at least 8 characters (a shorter"
                        + " one matches by chance), got " + secret.length());
            }
            for (String line : text.split("\n", -1)) {
                if (line.contains(secret)) {
                    leaks.add(line.replace(secret, "<secret>"));
                }
            }
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError(where + " contains a secret in " + leaks.size() + " line(s), first: " + leaks.get(0));
        }
    }
}
