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
    void fullJitterStaysUnderTheExponentialCeilingAndSpreadsOut() {
        Backoff backoff = Backoff.fullJitter(Duration.ofMillis(10), Duration.ofMillis(80));
        java.util.Set<Duration> seen = new java.util.HashSet<>();
        for (int i = 0; i < 200; i++) {
            Duration first = backoff.delay(0);
            Duration late = backoff.delay(30);
            assertThat(first).isBetween(Duration.ZERO, Duration.ofMillis(10));
            assertThat(late).isBetween(Duration.ZERO, Duration.ofMillis(80));
            seen.add(late);
        }
        assertThat(seen).as("distinct delays among 200 draws").hasSizeGreaterThan(100);
        assertThatThrownBy(() -> Backoff.fullJitter(Duration.ZERO, Duration.ofMillis(1)))
                .hasMessageContaining("full-jitter base");
        assertThatThrownBy(() -> Backoff.fullJitter(Duration.ofMillis(5), Duration.ofMillis(1)))
                .hasMessageContaining("full-jitter cap");
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
