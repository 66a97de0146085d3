package dev.fencing.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void badParametersAreRefusedWithTheValue() {
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofMillis(-1), Duration.ofSeconds(1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backoff base")
                .hasMessageContaining("PT-0.001S");
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cap");
        assertThatThrownBy(() -> Backoff.exponential(Duration.ZERO, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Backoff.fixed(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fixedIsFixed() {
        assertThat(Backoff.fixed(Duration.ofMillis(7)).delay(30)).isEqualTo(Duration.ofMillis(7));
    }

    @Test
    void hugeAttemptsSaturateAtTheCap() {
        Backoff backoff = Backoff.exponential(Duration.ofDays(1), Duration.ofDays(1), Duration.ofDays(1));
        assertThat(backoff.delay(Integer.MAX_VALUE)).isEqualTo(Duration.ofDays(1));
    }
}
