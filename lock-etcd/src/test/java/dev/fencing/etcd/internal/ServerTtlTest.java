package dev.fencing.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServerTtlTest {

    @ParameterizedTest
    @CsvSource({"1, 1", "600, 1", "989, 1", "990, 2", "1000, 2", "1500, 2", "10000, 11", "30000, 31", "60000, 61"})
    void theServersTtlIsTheLeaseTtlPlusTheMarginRoundedUpToWholeSeconds(long millis, long seconds) {
        assertThat(ServerTtl.seconds(Duration.ofMillis(millis))).isEqualTo(seconds);
    }

    @Test
    void theServerNeverLetsGoBeforeTheLocalValidityEnds() {
        for (long millis = 1; millis <= 200_000; millis += 7) {
            long serverMillis = ServerTtl.seconds(Duration.ofMillis(millis)) * 1000;
            assertThat(serverMillis).as("ttl %d ms", millis).isGreaterThanOrEqualTo(millis + millis / 100 + 2);
        }
    }
}
