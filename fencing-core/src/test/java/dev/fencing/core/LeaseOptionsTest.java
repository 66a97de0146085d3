package dev.fencing.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseOptionsTest {

    @Test
    void defaultsAreSensible() {
        LeaseOptions defaults = LeaseOptions.ofDefaults();
        assertThat(defaults.ttl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.waitTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.autoRenew()).isFalse();
        assertThat(defaults.backoff()).isNotNull();
    }

    @Test
    void theBuilderAndWithersSetEachComponent() {
        Backoff backoff = Backoff.fixed(Duration.ofMillis(3));
        LeaseOptions options = LeaseOptions.builder().ttl(Duration.ofSeconds(5)).waitTimeout(Duration.ZERO)
                .autoRenew(true).backoff(backoff).build();
        assertThat(options).isEqualTo(new LeaseOptions(Duration.ofSeconds(5), Duration.ZERO, true, backoff));
        assertThat(options.withTtl(Duration.ofSeconds(9)).ttl()).isEqualTo(Duration.ofSeconds(9));
        assertThat(options.withWaitTimeout(Duration.ofSeconds(2)).waitTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.withAutoRenew(false).autoRenew()).isFalse();
    }

    @Test
    void outOfRangeValuesAreRefusedWithTheValueAndTheRange() {
        assertThatThrownBy(() -> LeaseOptions.ofTtl(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ttl must be between PT0.001S and PT168H, got PT0S");
        assertThatThrownBy(() -> LeaseOptions.ofTtl(Duration.ofDays(8))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeaseOptions.ofTtl(Duration.ofNanos(1_500_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole number of milliseconds");
        assertThatThrownBy(() -> LeaseOptions.ofDefaults().withWaitTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTimeout");
        assertThatThrownBy(() -> LeaseOptions.builder().ttl(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl");
        assertThatThrownBy(() -> LeaseOptions.builder().backoff(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backoff");
    }
}
