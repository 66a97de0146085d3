package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SecretScanTest {

    private final SecretScan scan = SecretScan.of(() -> List.of("hunter2-secret"));

    @Test
    void aLineNamingTheSecretFailsWithTheSecretMasked() {
        assertThatThrownBy(() -> scan.assertNoSecretIn("connecting\nredis://app:hunter2-secret@db:6379 refused\n",
                "the log"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("the log contains a secret in 1 line(s), first: redis://app:<secret>@db:6379 refused")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2-secret"));
    }

    @Test
    void textWithoutTheSecretPasses() {
        scan.assertNoSecretIn("redis://app:***@db:6379 refused\nhunter2-secre", "the log");
    }

    @Test
    void aShortSecretIsRefused() {
        SecretScan tooShort = SecretScan.of(() -> List.of("abc"));
        assertThatThrownBy(() -> tooShort.assertNoSecretIn("abc", "the log"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 8 characters");
    }

    @Test
    void theChainShowsCausesAndSuppressedExceptions() {
        IllegalStateException top = new IllegalStateException("top", new RuntimeException("cause"));
        top.addSuppressed(new IllegalArgumentException("suppressed"));
        assertThat(SecretScan.chainOf(top)).contains("java.lang.IllegalStateException: top",
                "java.lang.RuntimeException: cause", "java.lang.IllegalArgumentException: suppressed");
    }
}
