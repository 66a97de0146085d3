package dev.fencing.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DriftMarginTest {

    @Test
    void theDriftMarginAndTheMinimumTtl() {
        assertThat(DriftMargin.of(Duration.ofSeconds(10), 0.01)).isEqualTo(Duration.ofMillis(102));
        assertThat(DriftMargin.of(Duration.ofMillis(100), 0)).isEqualTo(Duration.ofMillis(2));
        // single instance: validity ttl - margin must be positive
        assertThat(DriftMargin.minimumTtl(0.01, 0)).isEqualTo(Duration.ofMillis(3));
        // Redlock: it must also outlast a round of a third of the TTL
        assertThat(DriftMargin.minimumTtl(0.01, 1.0 / 3)).isEqualTo(Duration.ofMillis(4));
        assertThat(DriftMargin.minimumTtl(0.5, 1.0 / 3)).isEqualTo(Duration.ofMillis(13));
        for (double factor : new double[] {0, 0.01, 0.1, 0.5}) {
            for (double reserve : new double[] {0, 1.0 / 3}) {
                Duration min = DriftMargin.minimumTtl(factor, reserve);
                Duration below = min.minusMillis(1);
                assertThat(min.minus(DriftMargin.of(min, factor)).toNanos()).isGreaterThan((long) (min.toNanos() * reserve));
                assertThat(below.minus(DriftMargin.of(below, factor)).toNanos())
                        .isLessThanOrEqualTo((long) (below.toNanos() * reserve));
            }
        }
        assertThatThrownBy(() -> DriftMargin.requireTtlAbove(Duration.ofMillis(3), 0.01, 1.0 / 3, "Redlock"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0.003S").hasMessageContaining("PT0.004S");
    }
}
