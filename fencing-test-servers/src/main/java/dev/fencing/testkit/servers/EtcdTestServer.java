package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.Ports;
import dev.fencing.testkit.internal.Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An etcd member for tests: an {@code etcd} child process (Debian's {@code etcd-server} package,
 * or the binary {@code FENCING_ETCD} names) on loopback ports with its data directory under the
 * system temp directory, or an external server ({@code FENCING_ETCD_ENDPOINTS}). A managed member
 * keeps its data directory across {@link #stop()}, {@link #kill()} and {@link #start()}: a restart
 * is a durable restart, as in production. Started with a 50 ms heartbeat and a 500 ms election
 * timeout, so a lost leader is replaced within about a second.
 *
 * <p>Speaks etcd's HTTP gateway only ({@code /health}, {@code /v3/maintenance/status}): the
 * testkit does not depend on an etcd client library.
 */
public final class EtcdTestServer implements TestServer, LabMember {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"?(\\d+)");
    private static final Pattern MEMBER = Pattern.compile("\"member_id\"\\s*:\\s*\"?(\\d+)");

    private final String name;
    private final List<String> endpoints;
    private final @Nullable ChildProcess process;
    private final @Nullable Path dataDir;
    private final HttpClient http;

    private EtcdTestServer(String name, List<String> endpoints, @Nullable ChildProcess process,
            @Nullable Path dataDir, HttpClient http) {
        this.name = name;
        this.endpoints = List.copyOf(endpoints);
        this.process = process;
        this.dataDir = dataDir;
        this.http = http;
    }

    /** Starts a one-member cluster on free ports and waits until it has a leader. */
    public static EtcdTestServer launch() {
        Member member = Member.allocate("etcd-single");
        EtcdTestServer server = member.create(member.name + "=" + member.peerUrl(), "fencing-" + member.dataDir.getFileName());
        server.start();
        server.awaitHealthy(Duration.ofSeconds(30));
        return server;
    }

    /**
     * Starts a one-member cluster whose client URL is {@code https://127.0.0.1:port}, serving the
     * server certificate of {@code certificates} and requiring a client certificate signed by its
     * authority ({@code --client-cert-auth}); the peer URL stays plaintext on loopback. Waits until
     * it has a leader (asked over TLS with the client certificate). Authentication is not enabled:
     * the caller adds users and roles, then enables it.
     */
    public static EtcdTestServer launchTls(TestCertificates certificates) {
        Member member = Member.allocate("etcd-tls");
        EtcdTestServer server = member.create(member.name + "=" + member.peerUrl(),
                "fencing-" + member.dataDir.getFileName(), certificates);
        server.start();
        server.awaitHealthy(Duration.ofSeconds(30));
        return server;
    }

    /** An HTTP client that trusts the test authority and presents its client certificate. */
    private static HttpClient tlsClient(TestCertificates certificates) {
        try {
            java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
            try (var in = Files.newInputStream(certificates.clientKeyStore())) {
                keys.load(in, certificates.password());
            }
            java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
            try (var in = Files.newInputStream(certificates.trustStore())) {
                trust.load(in, certificates.password());
            }
            javax.net.ssl.KeyManagerFactory keyManagers = javax.net.ssl.KeyManagerFactory.getInstance(
                    javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, certificates.password());
            javax.net.ssl.TrustManagerFactory trustManagers = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).sslContext(context).build();
        } catch (java.security.GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot load the test certificates' stores from " + certificates, e);
        }
    }

    /** An external server or cluster: {@code endpoints} is a comma-separated list of {@code http://host:port}. */
    public static EtcdTestServer external(String endpoints) {
        List<String> parsed = Arrays.stream(endpoints.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (parsed.isEmpty()) {
            throw new IllegalArgumentException("FENCING_ETCD_ENDPOINTS must list http://host:port endpoints, got '"
                    + endpoints + "'");
        }
        return new EtcdTestServer("external etcd", parsed, null, null, HTTP);
    }

    /** The client endpoints ({@code http://host:port}, or {@code https://} from {@link #launchTls}), for jetcd's {@code Client.builder().endpoints(...)}. */
    public List<String> endpoints() {
        return endpoints;
    }

    /** The member's name ({@code --name}); in a {@link NetworkLab}, its name there too. */
    @Override
    public String name() {
        return name;
    }

    /** The first client endpoint. */
    public String endpoint() {
        return endpoints.get(0);
    }

    /** The client port of a managed member. */
    public int port() {
        return URI.create(endpoint()).getPort();
    }

    /** Whether the member answers {@code /health} with {@code true} (it is up and sees a leader). */
    public boolean isHealthy() {
        return get("/health").map(body -> body.contains("\"true\"")).orElse(false);
    }

    /** Whether this member is its cluster's leader now (asked over {@code /v3/maintenance/status}). */
    public boolean isLeader() {
        return post("/v3/maintenance/status", "{}").map(body -> {
            Matcher leader = LEADER.matcher(body);
            Matcher member = MEMBER.matcher(body);
            return leader.find() && member.find() && leader.group(1).equals(member.group(1));
        }).orElse(false);
    }

    /** Waits until the member is healthy, or throws after {@code timeout}. */
    @Override
    public void awaitHealthy(Duration timeout) {
        Ports.awaitCondition(describe(), timeout, this::isHealthy, () -> describe() + " was not healthy within "
                + timeout + (process == null ? "" : "; see " + process.log()));
    }

    /**
     * Turns on etcd's authentication with a {@code root} user of {@code rootPassword} and one
     * account, {@code user} with {@code password}, whose role of the same name may read and write
     * the keys under {@code keyPrefix} only ({@code etcdctl role grant-permission --prefix=true
     * readwrite}); through the HTTP gateway, as {@code etcdctl} would. Call once, before clients
     * that need no account connect no more.
     *
     * @throws IllegalStateException naming the step etcd refused
     */
    public void enableAuth(String rootPassword, String user, String password, String keyPrefix) {
        String end = keyPrefix.substring(0, keyPrefix.length() - 1) + (char) (keyPrefix.charAt(keyPrefix.length() - 1) + 1);
        java.util.Base64.Encoder base64 = java.util.Base64.getEncoder();
        List<String[]> steps = List.of(
                new String[] {"/v3/auth/role/add", "{\"name\":\"root\"}"},
                new String[] {"/v3/auth/user/add", "{\"name\":\"root\",\"password\":" + json(rootPassword) + "}"},
                new String[] {"/v3/auth/user/grant", "{\"user\":\"root\",\"role\":\"root\"}"},
                new String[] {"/v3/auth/role/add", "{\"name\":" + json(user) + "}"},
                new String[] {"/v3/auth/role/grant", "{\"name\":" + json(user) + ",\"perm\":{\"permType\":\"READWRITE\","
                        + "\"key\":\"" + base64.encodeToString(keyPrefix.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                        + "\",\"range_end\":\"" + base64.encodeToString(end.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                        + "\"}}"},
                new String[] {"/v3/auth/user/add", "{\"name\":" + json(user) + ",\"password\":" + json(password) + "}"},
                new String[] {"/v3/auth/user/grant", "{\"user\":" + json(user) + ",\"role\":" + json(user) + "}"},
                new String[] {"/v3/auth/enable", "{}"});
        for (String[] step : steps) {
            if (post(step[0], step[1]).isEmpty()) {
                throw new IllegalStateException(describe() + " refused " + step[0] + " while enabling authentication");
            }
        }
    }

    private static String json(String text) {
        if (!text.matches("[A-Za-z0-9_.:/@+=-]*")) {
            throw new IllegalArgumentException("test account names and passwords are letters, digits and _.:/@+=-");
        }
        return "\"" + text + "\"";
    }

    private Optional<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(endpoint() + path)).timeout(Duration.ofSeconds(2)).GET().build());
    }

    private Optional<String> post(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create(endpoint() + path)).timeout(Duration.ofSeconds(2))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private Optional<String> send(HttpRequest request) {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public String describe() {
        return (process == null ? "external etcd" : "etcd member " + name) + " at " + String.join(",", endpoints);
    }

    @Override
    public boolean isManaged() {
        return process != null;
    }

    /** Stops the member gracefully (SIGTERM); its data stays for {@link #start()}. */
    @Override
    public void stop() {
        managed("stop").stop();
    }

    /** Kills the member (SIGKILL); its data (fsynced raft log and snapshot) stays for {@link #start()}. */
    @Override
    public void kill() {
        managed("kill").kill();
    }

    /**
     * Starts a stopped or killed member on the same ports and data directory. A lone member waits
     * until it is healthy; a member of a cluster returns once it listens (it needs its peers to be
     * healthy).
     */
    @Override
    public void start() {
        ChildProcess child = managed("start");
        child.start();
    }

    /**
     * A file-level backup of the stopped member's data directory (its raft log, snapshots and
     * key-value store), as an operator's disk snapshot would take it, for {@link #restore}.
     *
     * @throws IllegalStateException if the member is running
     */
    @Override
    public Path backUp() {
        requireStopped("backUp");
        return DataDirectories.backUp(managedDataDir());
    }

    /**
     * Replaces the stopped member's data with a {@link #backUp()} taken earlier: old state comes
     * back, as after restoring a disk snapshot or {@code etcdctl snapshot restore} without
     * {@code --bump-revision}. {@link #start()} it afterwards.
     *
     * @throws IllegalStateException if the member is running
     */
    @Override
    public void restore(Path backup) {
        requireStopped("restore");
        DataDirectories.restore(backup, managedDataDir());
    }

    private void requireStopped(String fault) {
        if (managed(fault).isAlive()) {
            throw new IllegalStateException(fault + " needs the etcd member stopped first: " + describe());
        }
    }

    /** Freezes the member (SIGSTOP): connections stay open, nothing answers. */
    @Override
    public void pause() {
        managed("pause").pause();
    }

    /** Thaws a paused member. */
    @Override
    public void resume() {
        managed("resume").resume();
    }

    /** Whether the managed member's process is running. */
    @Override
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The data directory, which a managed member (past {@link #managed}) always has. */
    private Path managedDataDir() {
        return Objects.requireNonNull(dataDir, "a member with a process was created with its data directory");
    }

    private ChildProcess managed(String fault) {
        if (process == null) {
            throw ManagedOnly.refuse(this, fault);
        }
        return process;
    }

    @Override
    public String toString() {
        return describe();
    }

    /** The {@code etcd} binary: {@code FENCING_ETCD}, else {@code etcd} on the PATH. */
    static String binary() {
        Optional<String> configured = Settings.env("FENCING_ETCD");
        if (configured.isPresent()) {
            return configured.get();
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, "etcd");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IllegalStateException("no etcd binary on the PATH: install Debian's etcd-server package"
                + " (apt-get install -y etcd-server), set FENCING_ETCD to an etcd binary, or FENCING_ETCD_ENDPOINTS"
                + " to a running server");
    }

    /** The ports and data directory of one member, allocated before the cluster's members know each other. */
    static final class Member {
        final String name;
        final String host;
        final int clientPort;
        final int peerPort;
        final Path dataDir;
        private final @Nullable NetworkLab lab;

        private Member(String name, String host, int clientPort, int peerPort, @Nullable NetworkLab lab) {
            this.name = name;
            this.host = host;
            this.clientPort = clientPort;
            this.peerPort = peerPort;
            this.lab = lab;
            try {
                Path root = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "fencing-testkit"));
                this.dataDir = Files.createTempDirectory(root, "etcd-" + name + "-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a data directory for etcd " + name, e);
            }
        }

        static Member allocate(String name) {
            return new Member(name, "127.0.0.1", Ports.free(), Ports.free(), null);
        }

        /** A member in a namespace of {@code lab} of its own, named {@code name}, on etcd's usual ports. */
        static Member inLab(NetworkLab lab, String name) {
            return new Member(name, lab.add(name), 2379, 2380, lab);
        }

        String peerUrl() {
            return "http://" + host + ":" + peerPort;
        }

        String clientUrl() {
            return "http://" + host + ":" + clientPort;
        }

        /** The member's server; every member of one cluster gets the same {@code clusterToken}. */
        EtcdTestServer create(String initialCluster, String clusterToken) {
            return create(initialCluster, clusterToken, null);
        }

        /** As {@link #create(String, String)}, over TLS with client certificates when {@code tls} is given. */
        EtcdTestServer create(String initialCluster, String clusterToken, @Nullable TestCertificates tls) {
            String clientUrl = tls == null ? clientUrl() : "https://" + host + ":" + clientPort;
            List<String> command = new ArrayList<>(List.of(binary(),
                    "--name", name,
                    "--data-dir", dataDir.resolve("data").toString(),
                    "--listen-client-urls", clientUrl,
                    "--advertise-client-urls", clientUrl,
                    "--listen-peer-urls", peerUrl(),
                    "--initial-advertise-peer-urls", peerUrl(),
                    "--initial-cluster", initialCluster,
                    "--initial-cluster-state", "new",
                    "--initial-cluster-token", clusterToken,
                    "--heartbeat-interval", "50",
                    "--election-timeout", "500",
                    "--log-level", "warn"));
            if (tls != null) {
                command.addAll(List.of("--cert-file", tls.serverCertificate().toString(),
                        "--key-file", tls.serverKey().toString(),
                        "--trusted-ca-file", tls.caCertificate().toString(),
                        "--client-cert-auth"));
            }
            ChildProcess child = new ChildProcess("etcd-" + name, lab == null ? command : lab.commandIn(name, command),
                    host, clientPort, Duration.ofSeconds(30));
            child.deleteAtExit(dataDir);
            return new EtcdTestServer(name, List.of(clientUrl), child, dataDir.resolve("data"),
                    tls == null ? HTTP : tlsClient(tls));
        }
    }
}
