package dev.fencing.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void aPortWithACompanionLeavesRoomForTheCompanion() {
        // a Redis Cluster node on a port above 55535 has no bus port (+10000) and exits after its client port
        // opened; about one port in five of Linux's ephemeral range (32768-60999) is above it
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            int port = Ports.freeWithCompanion(10_000);
            assertThat(port + 10_000).as("the companion of port %d", port).isLessThanOrEqualTo(65535);
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
            assertThat(seen.add(port + 10_000)).as("companion %d handed out twice", port + 10_000).isTrue();
        }
    }

    @Test
    void freePortsComeFromBelowTheEphemeralRangeWhereNoConnectionTakesThem() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        Assumptions.assumeTrue(Files.isReadable(range), "not Linux: the kernel picks the ports");
        int low = Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0]);
        Assumptions.assumeTrue(low > 12_000, "the ephemeral range starts at " + low + ": no room below it");
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            int port = Ports.free();
            assertThat(port).as("a port for a server").isBetween(10_000, low - 1);
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
        }
    }
}
