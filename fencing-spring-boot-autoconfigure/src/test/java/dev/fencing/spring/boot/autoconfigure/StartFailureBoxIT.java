package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.spring.boot.startup.StartupApp;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Start-up failures as users of a packaged application meet them: a child JVM whose class path has
 * Spring Boot's jars first (as in a fat jar, where Boot's own failure analyzers are found first),
 * started with a bad setting. Each must end in Boot's "APPLICATION FAILED TO START" box naming the
 * property, the value and the fix — not Boot's generic "required a bean … that could not be found",
 * and not a stack trace whose useful line is some causes down.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class StartFailureBoxIT {

    private static final String BOX = "APPLICATION FAILED TO START";

    @Test
    void aMisspelledTypeNamesThePropertyTheValueAndTheAllowedOnes() throws Exception {
        Started run = start("--fencing.lock.type=reddis");
        assertThat(run.output()).as(run.describe()).contains(BOX).contains("fencing.lock.type")
                .contains("'reddis'").contains("redis, postgres, redlock, etcd, zookeeper")
                .doesNotContain("could not be found").doesNotContain("Caused by");
        assertThat(run.exitCode()).isNotZero();
    }

    @Test
    void aMisspelledPropertyNameIsPointedOut() throws Exception {
        Started run = start("--fencing.lock.typ=redis");
        assertThat(run.output()).as(run.describe()).contains(BOX).contains("fencing.lock.type is not set")
                .contains("fencing.lock.typ;").contains("did you mean fencing.lock.type?")
                .doesNotContain("could not be found");
    }

    @Test
    void aRedisThatIsDownIsNamedInTheBoxWithTheFix() throws Exception {
        int closed = closedPort();
        Started run = start("--fencing.lock.type=redis", "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + closed);
        assertThat(run.output()).as(run.describe()).contains(BOX)
                .contains("fencing.lock.type=redis: cannot use Redis 127.0.0.1:" + closed)
                .contains("spring.data.redis.host and spring.data.redis.port").doesNotContain("Caused by");
    }

    @Test
    void flywayOffWithoutTheToolkitsTablesFailsTheStartWithTheBootFix() throws Exception {
        RedisTestServer redis = TestServers.redis();
        Started run = start("--fencing.lock.type=redis", "--spring.data.redis.host=" + redis.host(),
                "--spring.data.redis.port=" + redis.port(), "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(),
                "--spring.flyway.enabled=false");
        assertThat(run.output()).as(run.describe()).contains(BOX).contains("JdbcFence bean cannot fence writes")
                .contains("table 'fencing_fence' does not exist")
                .contains("Flyway is off (spring.flyway.enabled=false): turn it on")
                .contains("fencing.jdbc.check-table=false").doesNotContain("Caused by");
        assertThat(run.exitCode()).isNotZero();
    }

    @Test
    void withFlywayOnTheSameApplicationStarts() throws Exception {
        RedisTestServer redis = TestServers.redis();
        Started run = start("--fencing.lock.type=redis", "--spring.data.redis.host=" + redis.host(),
                "--spring.data.redis.port=" + redis.port(), "--spring.datasource.url=" + TestDatabases.freshPostgresUrl());
        assertThat(run.output()).as(run.describe()).contains("STARTED").doesNotContain(BOX);
        assertThat(run.exitCode()).isZero();
    }

    /** What a child run printed (stdout and stderr), and how it ended. */
    record Started(String output, int exitCode, String classPathHead) {
        String describe() {
            return "exit " + exitCode + ", class path starting " + classPathHead + ", output:\n" + output;
        }
    }

    private static Started start(String... args) throws IOException, InterruptedException {
        List<String> classPath = bootJarsFirst();
        Path output = Files.createTempFile("start-failure", ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", String.join(File.pathSeparator, classPath),
                StartupApp.class.getName(), "--spring.main.banner-mode=off", "--spring.main.web-application-type=none"));
        // the test class path has JPA, whose entity manager opens the DataSource before any other bean
        if (Arrays.stream(args).noneMatch(arg -> arg.startsWith("--spring.datasource.url="))) {
            command.add("--spring.datasource.url=" + TestDatabases.freshPostgresUrl());
        }
        command.addAll(Arrays.asList(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            // a start takes seconds; the bound is for a machine running a whole build beside it
            if (!child.waitFor(3, TimeUnit.MINUTES)) {
                child.destroyForcibly().waitFor();
                throw new AssertionError("the application neither started nor failed in 3 minutes:\n"
                        + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Started(Files.readString(output, StandardCharsets.UTF_8), child.exitValue(),
                    classPath.stream().limit(2).map(entry -> Path.of(entry).getFileName().toString())
                            .collect(Collectors.joining(", ")));
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /**
     * This test's class path (as Failsafe passes it to the test JVM) with Spring Boot's jars first: a
     * fat jar's order, in which Boot's own {@code META-INF/spring.factories} are read before ours.
     */
    private static List<String> bootJarsFirst() {
        String testClassPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> entries = Arrays.asList(testClassPath.split(File.pathSeparator));
        List<String> ordered = new ArrayList<>();
        entries.stream().filter(entry -> Path.of(entry).getFileName().toString().startsWith("spring-boot"))
                .forEach(ordered::add);
        assertThat(ordered).as("Spring Boot's jars on %s", testClassPath).isNotEmpty();
        entries.stream().filter(entry -> !ordered.contains(entry)).forEach(ordered::add);
        return ordered;
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
