package dev.fencing.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
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
}
