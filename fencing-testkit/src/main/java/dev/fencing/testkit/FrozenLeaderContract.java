package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.leader.Leadership;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leader in a process of its own, frozen with SIGSTOP past its TTL as a long GC pause would: the
 * candidate in this JVM is elected with a greater epoch and writes to a fenced store; the frozen
 * process, thawed with SIGCONT, writes with its old epoch and is refused, and hears its term was
 * revoked. The store lives in this JVM and serves the child's writes over its standard streams
 * ({@link LeaderChild}), as a store server would.
 *
 * <p>Extend it in a provider's module with a main class that builds the provider from its
 * arguments and calls {@link LeaderChild#run}. Needs {@code kill} (POSIX).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class FrozenLeaderContract {

    /** A new client of the real server, for the candidate in this JVM. */
    protected abstract LockProvider createProvider();

    /** The child's main class: builds its provider from {@link #childArguments} and calls {@link LeaderChild#run}. */
    protected abstract Class<?> childMain();

    /** The child main's arguments, for {@code lock} and {@code ttl}. */
    protected abstract List<String> childArguments(String lock, Duration ttl);

    /**
     * The TTL of both candidates' terms; default 3 s, long enough that a busy machine's renewals keep the
     * running child's term (at 1.5 s a slow renewal lost it before the freeze, and the test proved nothing).
     */
    protected Duration ttl() {
        return Duration.ofSeconds(3);
    }

    @Test
    void aFrozenLeadersWriteWithItsOldEpochIsRefusedAfterTheNextLeaderWrote() throws Exception {
        String lock = "frozen-leader-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
        FencedStore store = InMemoryFencedStore.create();
        List<String> heard = new CopyOnWriteArrayList<>();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), childMain().getName()));
        command.addAll(childArguments(lock, ttl()));
        Process child = new ProcessBuilder(command).start();
        Thread server = serveWrites(child, lock, store, heard);
        List<String> errors = new CopyOnWriteArrayList<>();
        Thread errorReader = readErrors(child, errors);
        try (LockProvider provider = createProvider()) {
            scenario(provider, child, lock, store, heard);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(e.getMessage() + "\nthe child's output: " + heard + "\nits errors (last 40 lines):\n"
                    + String.join("\n", errors.subList(Math.max(0, errors.size() - 40), errors.size())), e);
        } finally {
            if (child.isAlive()) {
                signal(child, "CONT");
                child.destroyForcibly();
            }
            child.waitFor(10, TimeUnit.SECONDS);
            server.join(TimeUnit.SECONDS.toMillis(10));
            errorReader.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    private void scenario(LockProvider provider, Process child, String lock, FencedStore store, List<String> heard)
            throws IOException, InterruptedException {
        await("the child's election and first accepted write").atMost(Duration.ofSeconds(60))
                .failFast("the child exited", () -> !child.isAlive())
                .until(() -> heard.stream().anyMatch(line -> line.startsWith("ANSWER ACCEPTED")));
        long frozenEpoch = epochOf(heard, "ELECTED ");

        Leadership here = Leadership.builder(provider, lock).ttl(ttl()).start();
        // while the child runs it renews: this candidate waits through one and a half TTLs (four or five renewals)
        Holds.throughout("the running child keeping its term", ttl().multipliedBy(3).dividedBy(2),
                () -> !here.isLeader());

        signal(child, "STOP");
        await("this candidate's election once the frozen child's lease lapsed").atMost(ttl().plusSeconds(20))
                .pollInterval(Duration.ofMillis(10)).until(here::isLeader);
        FencingToken epoch = here.currentEpoch().orElseThrow();
        assertThat(epoch.value()).isGreaterThan(frozenEpoch);
        store.write(epoch, "config", "written by the new leader");

        int servedBefore = served(heard).size(); // the store serves one write at a time, in order
        signal(child, "CONT");
        await("the thawed child's writes, and its report of a refusal").atMost(Duration.ofSeconds(20))
                .until(() -> heard.contains("ANSWER REFUSED StaleTokenException leader=false")
                        || heard.contains("ANSWER REFUSED StaleTokenException leader=true"));
        List<String> served = served(heard);
        assertThat(served.subList(servedBefore, served.size())).as("the child's writes after the new leader's")
                .isNotEmpty().allMatch(answer -> answer.equals("SERVED REFUSED StaleTokenException"));
        await("the thawed child hears its term was revoked").atMost(Duration.ofSeconds(20))
                .until(() -> heard.contains("REVOKED " + frozenEpoch + " LOST"));
        await("the thawed child no longer believes it leads").atMost(Duration.ofSeconds(20))
                .until(() -> {
                    List<String> answers = answers(heard); // one copy: the child keeps adding
                    return answers.get(answers.size() - 1).endsWith("leader=false");
                });
        assertThat(heard.stream().filter(line -> line.startsWith("ELECTED "))).as("the child's elections")
                .hasSize(1);
        assertThat(here.currentEpoch()).as("this leader, untouched by the thawed one").contains(epoch);
        assertThat(store.read("config").orElseThrow().value()).isEqualTo("written by the new leader");
        here.stop();
    }

    private static Thread readErrors(Process child, List<String> errors) {
        Thread thread = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    errors.add(line);
                }
            } catch (IOException e) {
                // the child ended
            }
        }, "frozen-leader-errors");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static List<String> answers(List<String> heard) {
        return heard.stream().filter(line -> line.startsWith("ANSWER ")).toList();
    }

    private static List<String> served(List<String> heard) {
        return heard.stream().filter(line -> line.startsWith("SERVED ")).toList();
    }

    private static long epochOf(List<String> heard, String prefix) {
        return Long.parseLong(heard.stream().filter(line -> line.startsWith(prefix)).findFirst().orElseThrow()
                .substring(prefix.length()));
    }

    /** Reads the child's lines; applies each {@code WRITE <epoch>} to {@code store} and answers it. */
    private static Thread serveWrites(Process child, String lock, FencedStore store, List<String> heard) {
        Thread thread = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                            StandardCharsets.UTF_8));
                    Writer out = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
                for (String line; (line = in.readLine()) != null; ) {
                    heard.add(line);
                    if (line.startsWith("WRITE ")) {
                        String answer;
                        try {
                            store.write(FencingToken.of(lock, Long.parseLong(line.substring(6))), "config",
                                    "written by the child");
                            answer = "ACCEPTED";
                        } catch (StaleTokenException refused) {
                            answer = "REFUSED StaleTokenException";
                        }
                        heard.add("SERVED " + answer);
                        out.write(answer + "\n");
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // the child ended
            }
        }, "frozen-leader-store");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void signal(Process process, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
        assertThat(kill.waitFor()).as("kill -" + signal).isZero();
    }
}
