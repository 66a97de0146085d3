package dev.fencing.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.testkit.servers.SilentServer;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A blob endpoint that accepts TCP and never answers: a read gives up within the store's
 * {@code requestTimeout}, a write (the properties read first) too; without the bound the SDK's
 * defaults decide (minutes: retried tries of 60 s each).
 */
@Timeout(60)
class SilentAzureBlobIT {

    private static final Duration SLACK = Duration.ofMillis(1500);

    private final SilentServer silent = SilentServer.start();
    private final FencedStore store = AzureBlobFencedStore
            .builder(Blobs.service("http://" + silent.hostPort() + "/devstoreaccount1").getBlobContainerClient("c"))
            .requestTimeout(Duration.ofSeconds(1)).build();

    @AfterEach
    void close() {
        silent.close();
    }

    private static void givesUpWithin(Duration bound, ThrowingCallable call) {
        long start = System.nanoTime();
        assertThatThrownBy(call).hasRootCauseInstanceOf(TimeoutException.class); // the SDK's own, unwrapped
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("gave up after %s with requestTimeout %s", took, bound)
                .isBetween(bound.minusMillis(100), bound.plus(SLACK));
    }

    @Test
    void readsAndWritesGiveUpWithinTheRequestTimeout() {
        givesUpWithin(Duration.ofSeconds(1), () -> store.read("k"));
        givesUpWithin(Duration.ofSeconds(1), () -> store.write(FencingToken.of("silent", 7), "k", "v"));
        givesUpWithin(Duration.ofSeconds(1), () -> store.delete(FencingToken.of("silent", 7), "k"));
    }
}
