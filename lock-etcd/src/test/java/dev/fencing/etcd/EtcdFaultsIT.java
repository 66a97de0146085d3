package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.Holds;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.EtcdClusterTestServer;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Faults against real etcd: a killed leader, a frozen holder. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdFaultsIT {

    /** The frozen holder's TTL: renewed every second, so only a stall of 2 s loses it before the freeze. */
    private static final Duration HOLDER_TTL = Duration.ofSeconds(3);

    private static String resource(String name) {
        return "faults-" + name + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
    }

    /**
     * A 3-member cluster; two providers (two clients over every endpoint) grant in turn while the
     * leader is killed, twice (the first killed member restarted in between): grants resume on the
     * new leader and every token is greater than every earlier one. A holder that holds across the
     * first kill keeps its lease (a new leader extends leases) and nobody else gets the lock.
     */
    @Test
    void killingTheLeaderKeepsGrantingWithStrictlyIncreasingTokens() {
        try (EtcdClusterTestServer cluster = EtcdClusterTestServer.launch(3)) {
            String[] endpoints = cluster.endpoints().toArray(String[]::new);
            RecordingListener holderEvents = new RecordingListener();
            try (EtcdLockProvider a = EtcdLockProvider.builder(endpoints).listener(holderEvents)
                            .requestTimeout(Duration.ofSeconds(5)).build();
                    EtcdLockProvider b = EtcdLockProvider.builder(endpoints).requestTimeout(Duration.ofSeconds(5)).build()) {
                String resource = resource("leader");
                String held = resource("held");
                List<Long> tokens = new ArrayList<>();
                EtcdLockProvider[] providers = {a, b};
                grant(providers, resource, tokens, 6);
                Lease across = a.tryAcquire(held, LeaseOptions.builder().ttl(Duration.ofSeconds(4)).autoRenew(true)
                        .build()).orElseThrow();

                EtcdTestServer firstLeader = cluster.awaitLeader(Duration.ofSeconds(10));
                firstLeader.kill();
                grant(providers, resource, tokens, 6);
                EtcdTestServer secondLeader = cluster.awaitLeader(Duration.ofSeconds(10));
                assertThat(secondLeader).isNotSameAs(firstLeader);

                assertThat(b.tryAcquire(held, LeaseOptions.ofDefaults())).as("the lock held across the kill").isEmpty();
                assertThat(across.isValid()).isTrue();
                assertThat(holderEvents.lost()).isZero();
                across.release();

                firstLeader.start();
                firstLeader.awaitHealthy(Duration.ofSeconds(30));
                secondLeader.kill();
                grant(providers, resource, tokens, 6);
                assertThat(cluster.awaitLeader(Duration.ofSeconds(10))).isNotSameAs(secondLeader);

                assertThat(tokens).hasSize(18).isSorted().doesNotHaveDuplicates();
            }
        }
    }

    /** {@code count} grants, alternating providers, each retried while the cluster elects a leader. */
    private static void grant(EtcdLockProvider[] providers, String resource, List<Long> tokens, int count) {
        for (int i = 0; i < count; i++) {
            EtcdLockProvider provider = providers[i % providers.length];
            Lease lease = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .ignoreException(LockUnavailableException.class)
                    .until(() -> provider.tryAcquire(resource, LeaseOptions.ofDefaults()), Optional::isPresent)
                    .orElseThrow();
            tokens.add(lease.token().value());
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .ignoreException(LockUnavailableException.class)
                    .until(() -> {
                        lease.close();
                        return true;
                    });
        }
    }

    /**
     * A holder in another process, renewing a 3 s lease, is frozen with SIGSTOP: its renewals
     * stop, etcd expires its lease, and this process acquires with a larger token. The store
     * refuses the frozen holder's token once it has seen the new one. Thawed, the holder's
     * watchdog finds the lease gone and tells its listener, and the lease refuses to vouch for it.
     */
    @Test
    void aHolderFrozenPastItsLeaseLosesItAndTheNextHolderHasALargerToken() throws Exception {
        EtcdTestServer etcd = TestServers.etcd();
        String resource = resource("frozen");
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin",
                "java").toString());
        Process holder = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), FrozenHolderMain.class.getName(),
                etcd.endpoint(), resource, Long.toString(HOLDER_TTL.toMillis())).redirectErrorStream(true).start();
        List<String> output = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    output.add(line);
                }
            } catch (IOException e) {
                // the holder ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        try (EtcdLockProvider provider = EtcdLockProvider.builder(etcd.endpoint()).build()) {
            try {
                await("the holder's grant").atMost(Duration.ofSeconds(60))
                        .until(() -> output.stream().anyMatch(line -> line.startsWith("GRANTED ")));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("the holder printed no grant in 60 s (alive: " + holder.isAlive() + "); its"
                        + " output:\n" + String.join("\n", output), e);
            }
            long frozenToken = Long.parseLong(output.stream().filter(line -> line.startsWith("GRANTED ")).findFirst()
                    .orElseThrow().substring("GRANTED ".length()));
            // renewing: the lock stays held past the TTL while the holder runs
            Holds.throughout("the lock refused while the holder renews", HOLDER_TTL.plusSeconds(1),
                    () -> provider.tryAcquire(resource, LeaseOptions.ofDefaults()).isEmpty());
            assertThat(output).as("the holder kept its lease until frozen (a stall past its TTL loses it)")
                    .noneMatch(line -> line.startsWith("LOST "));

            signal(holder, "STOP");
            Lease next = await("etcd expires the frozen holder's lease").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> provider.tryAcquire(resource, LeaseOptions.ofDefaults()), Optional::isPresent)
                    .orElseThrow();
            assertThat(next.token().value()).isGreaterThan(frozenToken);

            FencedStore store = InMemoryFencedStore.create();
            store.write(next.token(), "account", "written by the new holder");
            assertThatThrownBy(() -> store.write(FencingToken.of(resource, frozenToken), "account", "zombie"))
                    .isInstanceOf(StaleTokenException.class);

            signal(holder, "CONT");
            await("the thawed holder hears its lease was lost").atMost(Duration.ofSeconds(20))
                    .until(() -> output.stream().anyMatch(line -> line.startsWith("REFUSED ")));
            assertThat(output).anyMatch(line -> line.startsWith("LOST "))
                    .contains("REFUSED LeaseLostException")
                    .doesNotContain("STILL-VALID");
            assertThat(next.isValid()).as("the new holder is untouched by the old one waking up").isTrue();
            next.release();
        } finally {
            if (holder.isAlive()) {
                signal(holder, "CONT");
                holder.destroyForcibly();
            }
            holder.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void signal(Process process, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
        assertThat(kill.waitFor()).as("kill -" + signal).isZero();
    }
}
