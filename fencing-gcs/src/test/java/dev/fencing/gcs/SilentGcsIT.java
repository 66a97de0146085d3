package dev.fencing.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.servers.SilentServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A GCS endpoint that accepts TCP and never answers: a read gives up within the store's
 * {@code requestTimeout} with {@link StoreUnavailableException} (nothing written), a write and a
 * delete too (their metadata read comes first); without the bound the library's defaults decide
 * (20 s reads, retried for 50 s). And an endpoint that refuses connections: the same exception,
 * at once.
 */
@Timeout(60)
class SilentGcsIT {

    private static final Duration SLACK = Duration.ofMillis(1500);

    private final SilentServer silent = SilentServer.start();
    private final FencedStore store = GcsFencedStore.builder(Gcs.client("http://" + silent.hostPort()), "bucket")
            .requestTimeout(Duration.ofSeconds(1)).build();

    @AfterEach
    void close() {
        silent.close();
    }

    private static void givesUpWithin(Duration bound, ThrowingCallable call) {
        long start = System.nanoTime();
        assertThatThrownBy(call).isInstanceOf(StoreUnavailableException.class)
                .hasMessageStartingWith("GCS at http://")
                .hasRootCauseInstanceOf(SocketTimeoutException.class); // the client's own, under the toolkit's
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("gave up after %s with requestTimeout %s", took, bound)
                .isBetween(bound.minusMillis(100), bound.plus(SLACK));
    }

    @Test
    void readsAndWritesGiveUpWithinTheRequestTimeout() {
        givesUpWithin(Duration.ofSeconds(1), () -> store.read("k"));
        givesUpWithin(Duration.ofSeconds(1), () -> store.write(FencingToken.of("silent", 7), "k", "v"));
        givesUpWithin(Duration.ofSeconds(1), () -> store.delete(FencingToken.of("silent", 7), "k"));
        givesUpWithin(Duration.ofSeconds(1), () -> store.highWaterMark("k"));
    }

    @Test
    void aRefusedConnectionIsUnavailableNotUnknown() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort(); // nothing listens there once it is closed
        }
        FencedStore nowhere = GcsFencedStore.builder(Gcs.client("http://127.0.0.1:" + closed), "bucket")
                .requestTimeout(Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> nowhere.read("k")).isInstanceOf(StoreUnavailableException.class)
                .isNotInstanceOf(WriteOutcomeUnknownException.class).hasMessageContaining("nothing was written");
        assertThatThrownBy(() -> nowhere.write(FencingToken.of("silent", 7), "k", "v"))
                .isInstanceOf(StoreUnavailableException.class);
    }
}
