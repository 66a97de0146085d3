package dev.fencing.cli;

import static dev.fencing.cli.SharedServers.args;
import static dev.fencing.cli.SharedServers.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * Every command in process: the demo and a worker for every lock × store pair built into this
 * version, on the testkit's shared servers (the README's first command on the embedded servers
 * the CLI starts itself); workers in two JVMs and two in-process workers on one resource, then
 * {@code inspect}; bad usage, unreachable servers and help. {@code torture} is
 * {@link CliTortureIT}; {@code bench} is fencing-bench's CliBenchIT.
 */
class CliIT {

    /** The README's first command, as it runs there: default lock and store, embedded servers, text. */
    @Test
    void theDemoShowsTheZombieRefusedWithFencingAndTheLostUpdateWithout() {
        CliRun run = CliRun.of("demo", "--ttl", "300ms");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out())
                .contains("1) With fencing")
                .contains("REFUSED: Stale fencing token")
                .contains("final: balance 150")
                .contains("client-2's deposit of 50 is lost");
    }

    /** {@code ./fencing demo --store azure-blob}: the CLI starts its own Azurite; the zombie is refused. */
    @Test
    void theDemoOnAnEmbeddedAzuriteShowsTheZombieRefused() {
        CliRun run = CliRun.of("demo", "--store", "azure-blob", "--ttl", "300ms");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out())
                .contains("azure-blob store on an embedded Azurite at http://127.0.0.1:")
                .contains("REFUSED: Stale fencing token")
                .contains("final: balance 150")
                .contains("client-2's deposit of 50 is lost");
    }

    /**
     * The zombie across a service boundary: the clients call an accounts service over HTTP with the
     * token in a header, and the service's store refuses the zombie; the refusal comes back to the
     * caller as the store's exception.
     */
    @Test
    void theDemoOverHttpShowsTheServiceRefusingTheZombie() {
        CliRun run = CliRun.of(args(List.of("demo", "--over", "http", "--ttl", "300ms", "--lock", "postgres", "--store",
                "jdbc"), SharedServers.both("postgres", "jdbc")));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out())
                .contains("over:  HTTP to an accounts service at http://127.0.0.1:")
                .contains("REFUSED by the accounts service (HTTP 409, Fencing-Refusal): Stale fencing token")
                .contains("final: balance 150")
                .contains("client-2's deposit of 50 is lost");
        assertThat(CliRun.of("demo", "--over", "carrier-pigeon")).satisfies(bad -> {
            assertThat(bad.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(bad.err()).contains("--over: 'carrier-pigeon' is not a way; use direct or http");
        });
    }

    /**
     * Every lock and every store once: the demo's steps depend on the lock (a lease that expires
     * while client 1 pauses) and on the store (the fenced write, the plain one) separately; every
     * pair's wiring is the worker's matrix below.
     */
    @ParameterizedTest(name = "{0} lock, {1} store")
    @MethodSource
    void theDemoReportsInJson(String lock, String store) {
        CliRun run = CliRun.of(args(List.of("demo", "--lock", lock, "--store", store, "--ttl", "200ms", "--json"),
                SharedServers.both(lock, store)));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        JsonNode fenced = report.get("runs").get(0);
        JsonNode plain = report.get("runs").get(1);
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(fenced.get("zombieWriteRefused").asBoolean()).isTrue();
        assertThat(fenced.get("finalBalance").asLong()).isEqualTo(150);
        assertThat(fenced.get("lostUpdate").asBoolean()).isFalse();
        assertThat(plain.get("finalBalance").asLong()).isEqualTo(70);
        assertThat(plain.get("lostUpdate").asBoolean()).isTrue();
        List<Long> tokens = new ArrayList<>();
        fenced.get("events").forEach(e -> {
            if (e.get("actor").asText().equals("client-2") && e.has("token")) {
                tokens.add(e.get("token").asLong());
            }
        });
        long zombieToken = fenced.get("events").get(1).get("token").asLong();
        assertThat(tokens).isNotEmpty().allSatisfy(t -> assertThat(t).isGreaterThan(zombieToken));
    }

    static Stream<Arguments> theDemoReportsInJson() {
        return Stream.of(Arguments.of("redis", "dynamodb"), Arguments.of("postgres", "jdbc"),
                Arguments.of("redlock", "s3"), Arguments.of("postgres", "redis"), Arguments.of("etcd", "redis"),
                Arguments.of("zookeeper", "jdbc"), Arguments.of("dynamodb", "s3"), Arguments.of("redis", "azure-blob"));
    }

    /** Also: the worker says which lock and which store it used — the servers it was pointed at. */
    @ParameterizedTest(name = "{0} lock, {1} store")
    @MethodSource("dev.fencing.cli.SharedServers#pairs")
    void aWorkerCountsItsAcceptedIncrementsIntoTheStore(String lock, String store) {
        String resource = resource();
        CliRun run = CliRun.of(args(List.of("worker", "--lock", lock, "--store", store, "--resource", resource,
                "--increments", "20", "--json"), SharedServers.both(lock, store)));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("accepted").asLong()).isEqualTo(20);
        assertThat(report.get("counter").asText()).isEqualTo("20");
        assertThat(report.get("lastToken").asLong()).isGreaterThan(report.get("firstToken").asLong());
        assertThat(report.get("violations")).isEmpty();
        assertThat(report.get("lock").asText()).startsWith(lock).contains(address(SharedServers.lock(lock).get(0).get(1)));
        assertThat(report.get("store").asText()).startsWith(store).contains(address(SharedServers.store(store).get(1)));
    }

    /** host:port of a server address, as the CLI prints it (JDBC URLs with the password hidden). */
    private static String address(String serverAddress) {
        if (!serverAddress.contains("//")) {
            return serverAddress; // a ZooKeeper connect string is host:port already
        }
        URI uri = URI.create(serverAddress.replaceFirst("^jdbc:", ""));
        return uri.getHost() + ":" + uri.getPort();
    }

    /**
     * A worker in a JVM of its own and, once that one has connected (it printed its lock), one in
     * this JVM, on one resource.
     */
    @Test
    void twoWorkerProcessesOnOneResourceSumToTheStoredCounter() throws Exception {
        String resource = resource();
        List<String> args = new ArrayList<>(List.of("worker", "--resource", resource, "--increments", "25", "--hold",
                "5ms"));
        args.addAll(SharedServers.both("redis", "redis"));
        Process other = CliRun.inNewJvm(args);
        BufferedReader otherOut = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder otherText = new StringBuilder();
        for (String line = otherOut.readLine(); line != null; line = otherOut.readLine()) {
            otherText.append(line).append('\n');
            if (line.startsWith("  lock:")) {
                break;
            }
        }
        assertThat(otherText).as("the other worker connected").contains("  lock:  redis lock on " + TestServers.redis().uri());
        args.add("--json");
        CliRun here = CliRun.of(args.toArray(String[]::new));
        assertThat(here.exitCode()).as(here.toString()).isZero();
        otherOut.lines().forEach(line -> otherText.append(line).append('\n'));
        assertThat(other.waitFor(120, TimeUnit.SECONDS)).as("worker process finished").isTrue();
        assertThat(other.exitValue()).as(otherText.toString()).isZero();
        Matcher summary = Pattern.compile("accepted (\\d+), .* tokens \\d+\\.\\.(\\d+);").matcher(otherText);
        assertThat(summary.find()).as(otherText.toString()).isTrue();
        inspectAfter("redis", "redis", resource, here.json().get("accepted").asLong() + Long.parseLong(summary.group(1)),
                Math.max(here.json().get("lastToken").asLong(), Long.parseLong(summary.group(2))));
    }

    /**
     * Two workers at once in this JVM, each with clients of its own (as two processes would have),
     * on one resource of each other store, each store with another lock.
     */
    @ParameterizedTest(name = "{0} lock, {1} store")
    @MethodSource
    void twoWorkersAtOnceOnOneResourceSumToTheStoredCounter(String lock, String store) throws Exception {
        String resource = resource();
        String[] args = args(List.of("worker", "--lock", lock, "--store", store, "--resource", resource, "--increments",
                "15", "--hold", "5ms", "--json"), SharedServers.both(lock, store));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        CliRun a;
        CliRun b;
        try {
            Future<CliRun> first = threads.submit(() -> CliRun.of(args));
            Future<CliRun> second = threads.submit(() -> CliRun.of(args));
            a = first.get(120, TimeUnit.SECONDS);
            b = second.get(120, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
        assertThat(a.exitCode()).as(a.toString()).isZero();
        assertThat(b.exitCode()).as(b.toString()).isZero();
        inspectAfter(lock, store, resource, a.json().get("accepted").asLong() + b.json().get("accepted").asLong(),
                Math.max(a.json().get("lastToken").asLong(), b.json().get("lastToken").asLong()));
    }

    static Stream<Arguments> twoWorkersAtOnceOnOneResourceSumToTheStoredCounter() {
        return Stream.of(Arguments.of("postgres", "jdbc"), Arguments.of("redlock", "dynamodb"),
                Arguments.of("redis", "s3"), Arguments.of("etcd", "redis"), Arguments.of("zookeeper", "redis"),
                Arguments.of("dynamodb", "azure-blob"));
    }

    /**
     * {@code inspect} of an etcd or ZooKeeper lock while a worker holds it (inside its one increment,
     * for 3 s: time for a few inspects, each with a client of its own) names the holder and its
     * token, the same the worker then writes with; once it released, the lock is free — and neither
     * server keeps the token of a released lock.
     */
    @ParameterizedTest
    @ValueSource(strings = {"etcd", "zookeeper"})
    void inspectShowsWhoHoldsAConsensusLock(String lock) throws Exception {
        String resource = resource();
        List<String> servers = SharedServers.both(lock, "redis");
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<CliRun> holding = thread.submit(() -> CliRun.of(args(List.of("worker", "--lock", lock, "--resource",
                    resource, "--increments", "1", "--hold", "3s", "--ttl", "10s", "--json"), servers)));
            String[] inspect = args(List.of("inspect", "--lock", lock, "--resource", resource, "--json"), servers);
            JsonNode held = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> CliRun.of(inspect).json(), state -> !state.get("holder").isNull());
            CliRun worker = holding.get(60, TimeUnit.SECONDS);
            assertThat(worker.exitCode()).as(worker.toString()).isZero();
            assertThat(held.get("lastToken").asLong()).as("the holder's token").isEqualTo(
                    worker.json().get("lastToken").asLong());
            assertThat(held.get("holder").asText()).hasSize(32); // the 128-bit owner id, hex
            if (lock.equals("etcd")) { // the holder's etcd lease: 10 s, rounded up to whole seconds
                assertThat(held.get("remainingMillis").asLong()).isPositive();
            }
            JsonNode free = CliRun.of(inspect).json();
            assertThat(free.get("holder").isNull()).isTrue();
            assertThat(free.get("lastToken").isNull()).isTrue();
            assertThat(free.get("value").asText()).isEqualTo("1");
            assertThat(free.get("highWaterMark").asLong()).isEqualTo(worker.json().get("lastToken").asLong());
        } finally {
            thread.shutdownNow();
        }
    }

    /** {@code inspect} (read-only) sees the sum of both workers' accepted increments and the last token. */
    private static void inspectAfter(String lock, String store, String resource, long accepted, long lastToken) {
        assertThat(accepted).isPositive();
        CliRun inspect = CliRun.of(args(List.of("inspect", "--store", store, "--resource", resource, "--lock", lock,
                "--json"), SharedServers.both(lock, store)));
        assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
        JsonNode state = inspect.json();
        assertThat(state.get("value").asText()).isEqualTo(Long.toString(accepted));
        assertThat(state.get("state").asText()).isEqualTo("present");
        assertThat(state.get("missing")).isEmpty();
        assertThat(state.get("highWaterMark").asLong()).isEqualTo(lastToken);
        if (lock.equals("redlock")) { // Redlock cannot tell a lock's state: no node alone knows it
            assertThat(state.get("lastToken").isNull()).isTrue();
        } else if (lock.equals("etcd") || lock.equals("zookeeper")) { // a released lock leaves no key, no znode
            assertThat(state.get("lastToken").isNull()).as("a free lock's token").isTrue();
        } else {
            assertThat(state.get("lastToken").asLong()).isEqualTo(lastToken);
        }
        assertThat(state.get("holder").isNull()).isTrue();
    }

    @Test
    void inspectTellsAnAbsentResourceInText() {
        CliRun run = CliRun.of("inspect", "--redis-uri", TestServers.redis().uri(), "--resource", resource(), "--lock",
                "redis");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("absent: no value and no mark").contains("lock:  free; no token issued yet");
    }

    /**
     * {@code inspect --store s3} checks the server's conditions and metadata: through the testkit's
     * atomic endpoint it passes (exit 0); through a gateway that drops {@code If-Match} /
     * {@code If-None-Match} it names what the server got wrong (exit 5). Both leave no scratch object.
     */
    @Test
    void inspectOfAnS3StoreChecksTheServersConditions() {
        String atomic = TestServers.s3().atomicEndpoint();
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(atomic)).forcePathStyle(true)
                .region(Region.of("us-east-1"))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build()) {
            try {
                s3.createBucket(r -> r.bucket("fencing-cli"));
            } catch (BucketAlreadyOwnedByYouException | BucketAlreadyExistsException exists) {
                // another test made it
            }
            CliRun safe = CliRun.of("inspect", "--store", "s3", "--s3-endpoint", atomic, "--resource", resource(),
                    "--json");
            assertThat(safe.exitCode()).as(safe.toString()).isZero();
            assertThat(safe.json().get("serverCheck").get("passed").asBoolean()).isTrue();

            CliRun unsafe = CliRun.of("inspect", "--store", "s3", "--s3-endpoint",
                    TestServers.s3().conditionIgnoringEndpoint(), "--resource", resource());
            assertThat(unsafe.exitCode()).as(unsafe.toString()).isEqualTo(5);
            assertThat(unsafe.out()).contains("NOT SAFE for fenced writes").contains("ignores If-None-Match: *")
                    .contains("ignores If-Match");
            assertThat(s3.listObjectsV2(r -> r.bucket("fencing-cli").prefix(".fencing-check/")).contents()).isEmpty();
        }
    }

    /**
     * A resource guarded by JdbcFence has no entry in the jdbc store, but a fence row that refuses
     * older tokens: inspect must show it, not say that any token is accepted.
     */
    @Test
    void inspectShowsTheFenceRowOfALockGuardedByJdbcFence() throws Exception {
        String url = freshDatabase();
        javax.sql.DataSource db = new org.postgresql.ds.PGSimpleDataSource();
        ((org.postgresql.ds.PGSimpleDataSource) db).setURL(url);
        dev.fencing.migrations.FencingMigrations.migrate(db);
        dev.fencing.jdbc.JdbcFence.create(db).inTransaction(dev.fencing.core.FencingToken.of("account-7", 12),
                connection -> null);

        CliRun text = CliRun.of("inspect", "--store", "jdbc", "--pg-url", url, "--resource", "account-7");
        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.out()).contains("fence: lock 'account-7' at token 12").doesNotContain("any token is accepted");

        CliRun json = CliRun.of("inspect", "--store", "jdbc", "--pg-url", url, "--resource", "account-7", "--json");
        assertThat(json.json().get("fence").get("lock").asLong()).isEqualTo(12);
    }

    /**
     * A diagnostic must not write: on a database the toolkit never used, inspect names the missing
     * tables, answers (exit 0, state not-set-up) and leaves the database without a single table.
     */
    @Test
    void inspectOfAFreshDatabaseReportsTheMissingTablesAndCreatesNone() throws Exception {
        String url = freshDatabase();
        CliRun run = CliRun.of("inspect", "--store", "jdbc", "--lock", "postgres", "--pg-url", url, "--resource", "r",
                "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = run.json();
        assertThat(report.get("state").asText()).isEqualTo("not-set-up");
        assertThat(report.get("missing").toString()).contains("table fencing_store", "table fencing_token_counter");
        assertThat(report.get("highWaterMark").isNull()).isTrue();

        CliRun text = CliRun.of("inspect", "--store", "jdbc", "--pg-url", url, "--resource", "r");
        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.out()).contains("not set up here: table fencing_store (the jdbc store's) is missing")
                .contains("inspect created nothing").doesNotContain("any token is accepted");

        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement();
                ResultSet tables = statement.executeQuery("SELECT table_schema || '.' || table_name FROM"
                        + " information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')")) {
            List<String> created = new ArrayList<>();
            while (tables.next()) {
                created.add(tables.getString(1));
            }
            assertThat(created).as("tables inspect created").isEmpty();
        }
    }

    /** A database of its own on the shared PostgreSQL, and its JDBC URL. */
    private static String freshDatabase() throws Exception {
        String name = "cli_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection connection = TestServers.postgres().connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        return TestServers.postgres().jdbcUrl().replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name);
    }

    /** DynamoDB likewise: no table created on a server that has none. */
    @Test
    void inspectOfADynamoDbWithoutTheTableCreatesNone() {
        DynamoDbTestServer server = DynamoDbTestServer.launch();
        try (DynamoDbClient client = DynamoDbClient.builder().endpointOverride(URI.create(server.endpoint()))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("t", "t"))).build()) {
            CliRun run = CliRun.of("inspect", "--store", "dynamodb", "--dynamodb-endpoint", server.endpoint(),
                    "--resource", "r", "--json");
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.json().get("state").asText()).isEqualTo("not-set-up");
            assertThat(run.json().get("missing").toString()).contains("DynamoDB table fencing-cli is missing");
            assertThat(client.listTables().tableNames()).as("tables inspect created").isEmpty();
        } finally {
            server.stop();
        }
    }

    static Stream<Arguments> malformedAddresses() {
        String pgForm = "use jdbc:postgresql://HOST[:PORT]/DATABASE?user=U&password=P";
        String redisForm = "use redis://[:PASSWORD@]HOST[:PORT][/DB]";
        String etcdForm = "use http://HOST:PORT (https:// for TLS), comma-separated for the members of a cluster";
        String zooKeeperForm = "use HOST:PORT, comma-separated for an ensemble";
        return Stream.of(
                Arguments.of(List.of("--lock", "postgres", "--pg-url", "postgresql://localhost:5432/fencing"),
                        "--pg-url: 'postgresql://localhost:5432/fencing' is malformed: it is not a JDBC URL", pgForm),
                Arguments.of(List.of("--lock", "postgres", "--pg-url", "jdbc:postgresql://localhost:5432/?user=u&password=secret"),
                        "--pg-url: 'jdbc:postgresql://localhost:5432/?user=u&password=***' is malformed: it names no"
                                + " database", pgForm),
                Arguments.of(List.of("--lock", "postgres", "--pg-url", "jdbc:postgresql://localhost:5432"),
                        "it names no database", pgForm),
                Arguments.of(List.of("--lock", "postgres", "--pg-url", "jdbc:mysql://localhost:3306/fencing"),
                        "write jdbc:mariadb: instead of jdbc:mysql:", pgForm),
                Arguments.of(List.of("--redis-uri", "localhost:16500"),
                        "--redis-uri: 'localhost:16500' is malformed: it has no scheme", redisForm),
                Arguments.of(List.of("--redis-uri", "redis://"), "--redis-uri: 'redis://' is malformed: it names no host",
                        redisForm),
                Arguments.of(List.of("--redis-uri", "http://localhost:6379"),
                        "--redis-uri: 'http://localhost:6379' is malformed: 'http:' is not a Redis scheme", redisForm),
                Arguments.of(List.of("--redis-uri", "redis://localhost:99999"), "--redis-uri: 'redis://localhost:99999'"
                        + " is malformed: Port out of range: 99999", redisForm),
                Arguments.of(List.of("--store", "s3", "--s3-endpoint", "not a url"),
                        "--s3-endpoint: 'not a url' is malformed: it is not a URL", "use http://HOST:PORT or https://"),
                Arguments.of(List.of("--store", "dynamodb", "--dynamodb-endpoint", "localhost:8000"),
                        "--dynamodb-endpoint: 'localhost:8000' is malformed", "use http://HOST:PORT or https://"),
                Arguments.of(List.of("--lock", "etcd", "--etcd-endpoints", "localhost:2379"),
                        "--etcd-endpoints: 'localhost:2379' is malformed: 'localhost:2379' has no scheme", etcdForm),
                Arguments.of(List.of("--lock", "etcd", "--etcd-endpoints", "http://127.0.0.1:2379,unix:///run/etcd"),
                        "'unix:' is not http or https", etcdForm),
                Arguments.of(List.of("--lock", "etcd", "--etcd-endpoints", "http://127.0.0.1"),
                        "--etcd-endpoints: 'http://127.0.0.1' is malformed: 'http://127.0.0.1' names no port", etcdForm),
                Arguments.of(List.of("--lock", "etcd", "--etcd-endpoints", "http://127.0.0.1:2379/v3"),
                        "'http://127.0.0.1:2379/v3' has more than a scheme, host and port", etcdForm),
                Arguments.of(List.of("--lock", "zookeeper", "--zookeeper-connect", "http://127.0.0.1:2181"),
                        "--zookeeper-connect: 'http://127.0.0.1:2181' is malformed: ZooKeeper takes HOST:PORT, without"
                                + " a scheme", zooKeeperForm),
                Arguments.of(List.of("--lock", "zookeeper", "--zookeeper-connect", "127.0.0.1:2181,:2182"),
                        "--zookeeper-connect: '127.0.0.1:2181,:2182' is malformed: ':2182' is not HOST[:PORT]",
                        zooKeeperForm),
                Arguments.of(List.of("--lock", "zookeeper", "--zookeeper-connect", "127.0.0.1:70000"),
                        "'70000' is not a port (1 to 65535)", zooKeeperForm));
    }

    /** Malformed is bad usage, at once: exit 2 naming the option and what it takes, never "unreachable". */
    @ParameterizedTest
    @MethodSource
    void malformedAddresses(List<String> options, String message, String allowed) {
        CliRun run = CliRun.of(args(List.of("worker", "--resource", "r", "--increments", "1"), options));
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains(message).contains(allowed).doesNotContain("secret");
        CliRun demo = CliRun.of(args(List.of("demo"), options));
        assertThat(demo.exitCode()).as(demo.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(demo.err()).contains(message);
    }

    static Stream<Arguments> refusedPorts() {
        String redis = TestServers.redis().uri();
        return Stream.of(
                Arguments.of(List.of("--redis-uri", "redis://127.0.0.1:1"), "Redis for the lock at redis://127.0.0.1:1",
                        "--redis-uri or FENCING_REDIS_URI"),
                Arguments.of(List.of("--lock", "postgres", "--store", "jdbc", "--pg-url",
                        "jdbc:postgresql://127.0.0.1:1/fencing?user=u&password=secret"),
                        "the database at jdbc:postgresql://127.0.0.1:1/fencing?user=u&password=***",
                        "--pg-url or FENCING_PG_URL"),
                Arguments.of(List.of("--redis-uri", redis, "--store", "dynamodb", "--dynamodb-endpoint", "http://127.0.0.1:1"),
                        "DynamoDB at http://127.0.0.1:1", "--dynamodb-endpoint or FENCING_DYNAMODB_ENDPOINT"),
                Arguments.of(List.of("--redis-uri", redis, "--store", "s3", "--s3-endpoint", "http://127.0.0.1:1"),
                        "S3 at http://127.0.0.1:1", "--s3-endpoint or FENCING_S3_ENDPOINT"),
                Arguments.of(List.of("--redis-uri", redis, "--store", "azure-blob", "--azure-blob-endpoint",
                        "http://127.0.0.1:1/devstoreaccount1"), "Azure Blob Storage at http://127.0.0.1:1/devstoreaccount1",
                        "--azure-blob-endpoint or FENCING_AZURE_BLOB_ENDPOINT"),
                Arguments.of(List.of("--lock", "etcd", "--etcd-endpoints", "http://127.0.0.1:1,http://127.0.0.1:2",
                        "--redis-uri", redis), "etcd for the lock at http://127.0.0.1:1,http://127.0.0.1:2",
                        "--etcd-endpoints or FENCING_ETCD_ENDPOINTS"),
                Arguments.of(List.of("--lock", "zookeeper", "--zookeeper-connect", "127.0.0.1:1", "--redis-uri", redis),
                        "ZooKeeper for the lock at 127.0.0.1:1", "--zookeeper-connect or FENCING_ZOOKEEPER_CONNECT"));
    }

    /**
     * A refused port is exit 3 with the driver's own reason and its root cause, not a pool's
     * "timed out after 30000ms" that hides it.
     */
    @ParameterizedTest
    @MethodSource
    void refusedPorts(List<String> options, String what, String howToPoint) {
        CliRun run = CliRun.of(args(List.of("worker", "--resource", "r", "--increments", "1"), options));
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(run.err()).contains(what + " could not be reached: ").contains("Connection refused")
                .contains(howToPoint).doesNotContain("secret").doesNotContain("timed out");
    }

    static Stream<Arguments> workersWithoutAServer() {
        String redis = TestServers.redis().uri();
        return Stream.of(
                Arguments.of(List.of(), "the lock (--lock redis) has no server: give --redis-uri"),
                Arguments.of(List.of("--lock", "redlock"), "the lock (--lock redlock) has no server: give --redis-uri, once"
                        + " per Redlock node"),
                Arguments.of(List.of("--lock", "postgres", "--redis-uri", redis), "the lock (--lock postgres) has no server:"
                        + " give --pg-url"),
                Arguments.of(List.of("--redis-uri", redis, "--store", "jdbc"), "the store (--store jdbc) has no server:"
                        + " give --pg-url"),
                Arguments.of(List.of("--lock", "etcd", "--redis-uri", redis), "the lock (--lock etcd) has no server:"
                        + " give --etcd-endpoints"),
                Arguments.of(List.of("--lock", "zookeeper", "--redis-uri", redis), "the lock (--lock zookeeper) has no"
                        + " server: give --zookeeper-connect"),
                Arguments.of(List.of("--redis-uri", redis, "--store", "dynamodb"), "the store (--store dynamodb) has no"
                        + " server: give --dynamodb-endpoint"),
                Arguments.of(List.of("--redis-uri", redis, "--store", "s3"), "the store (--store s3) has no server: give"
                        + " --s3-endpoint"),
                Arguments.of(List.of("--redis-uri", redis, "--store", "azure-blob"), "the store (--store azure-blob) has no"
                        + " server: give --azure-blob-endpoint"));
    }

    /** Workers share only servers they are all pointed at: a side with none is refused unless --embedded. */
    @ParameterizedTest
    @MethodSource
    void workersWithoutAServer(List<String> options, String message) {
        CliRun run = CliRun.of(args(List.of("worker", "--resource", "r", "--increments", "1"), options));
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains(message).contains("or --embedded to run it on an embedded server private to"
                + " this process");
    }

    @Test
    void aWorkerAskedForEmbeddedServersSaysSo() {
        CliRun run = CliRun.of("worker", "--embedded", "--resource", resource(), "--increments", "3");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("lock:  redis lock on an embedded redis-server at")
                .contains("store: redis store on its own embedded redis-server at")
                .contains("accepted 3, rejected as stale 0");
    }

    @Test
    void badUsageExitsWithTwoAndNamesTheBadValue() {
        assertThat(CliRun.of("demo", "--lock", "consul")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("'consul' is not a lock provider; choose one of redis, postgres, redlock, etcd,"
                    + " zookeeper");
        });
        assertThat(CliRun.of("demo", "--ttl", "soon")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("'soon' is not a duration");
        });
        assertThat(CliRun.of("worker", "--increments", "3")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--resource");
        });
        assertThat(CliRun.of("worker", "--resource", "r", "--increments", "0")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--increments must be between 1 and 1000000, got 0");
        });
        assertThat(CliRun.of("torture", "--pause-probability", "1.5")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--pause-probability must be between 0 and 1, got 1.5");
        });
        assertThat(CliRun.of("torture", "--redis-uri", TestServers.redis().uri(), "--faults", "restart-lock-server",
                "--duration", "1s")).satisfies(run -> {
                    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
                    assertThat(run.err()).contains("faults need servers the CLI started itself");
                });
        assertThat(CliRun.of()).satisfies(run -> assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE));
    }

    /** The top command's name is said once ("fencing: ..."), a subcommand's after it ("fencing demo: ..."). */
    @Test
    void errorsNameTheCommandOnce() {
        CliRun top = CliRun.of("nonsense");
        assertThat(top.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(top.err()).startsWith("fencing: Unmatched argument at index 0: 'nonsense'")
                .contains("Run 'fencing --help' for the options.").doesNotContain("fencing fencing");
        CliRun sub = CliRun.of("demo", "nonsense");
        assertThat(sub.err()).startsWith("fencing demo: Unmatched argument").contains("Run 'fencing demo --help'");
    }

    /** A negative duration is called negative; a duration out of an option's range names the range. */
    @Test
    void durationsOutOfRangeSayWhatIsAllowed() {
        assertThat(CliRun.of("demo", "--ttl", "-1s")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("Invalid value for option '--ttl': '-1s' is negative; a duration here is zero"
                    + " or more, e.g. 500ms");
        });
        assertThat(CliRun.of("worker", "--resource", "r", "--increments", "1", "--hold", "PT-2S")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("'--hold': 'PT-2S' is negative");
        });
        assertThat(CliRun.of("demo", "--ttl", "50ms")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--ttl must be between 100ms and 1m, got 50ms");
        });
        assertThat(CliRun.of("worker", "--resource", "r", "--increments", "1", "--ttl", "0ms")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--ttl must be between 1ms and 7d, got 0ms");
        });
        assertThat(CliRun.of("torture", "--ttl", "8d")).satisfies(run -> {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--ttl must be between 1ms and 7d, got 8d");
        });
    }

    @Test
    void helpListsEveryCommandAndOptionWithItsRange() {
        CliRun top = CliRun.of("--help");
        assertThat(top.exitCode()).isZero();
        assertThat(top.out()).contains("demo", "worker", "torture", "inspect", "Exit codes");
        CliRun torture = CliRun.of("torture", "--help");
        assertThat(torture.out()).contains("--workers", "--duration", "--pause-probability", "--faults", "--json",
                "--redis-uri", "--etcd-endpoints", "--zookeeper-connect");
        assertThat(words(torture.out())).contains("restart-etcd-leader for etcd", "expire-zookeeper-session for zookeeper");
        assertThat(words(torture.out())).contains("--ttl=D Lease TTL, 1ms to 7d");
        assertThat(words(CliRun.of("demo", "--help").out())).contains("--ttl=D Lease TTL, 100ms to 1m");
        String worker = words(CliRun.of("worker", "--help").out());
        assertThat(worker).contains("--ttl=D Lease TTL, 1ms to 7d", "--embedded Run a lock or store that has no server",
                "--pg-url=JDBC_URL JDBC URL (credentials as parameters) of the database that serves both the postgres"
                        + " lock");
        assertThat(words(CliRun.of("inspect", "--help").out())).contains("Read-only: creates and migrates nothing");
    }

    /** Help text with its line breaks and indentation collapsed to single spaces. */
    private static String words(String help) {
        return help.replaceAll("\\s+", " ");
    }
}
