package dev.fencing.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Updates whose upload landed but whose reply was lost (a proxy swallows the reply to the next
 * {@code PUT} and closes the connection): counted exactly once, never re-applied — whether nobody
 * wrote in the window (written, proved by the write id) or a writer with the same token replaced
 * the blob in it (unknown).
 */
class AzureBlobLostReplyIT {

    private static final FencingToken TOKEN = FencingToken.of("counter", 2);

    private final String container = Blobs.newContainer();
    private final ReplyDroppingProxy proxy = ReplyDroppingProxy.inFrontOf(TestServers.azureBlob().endpoint());
    private final String key = "counter-" + UUID.randomUUID();

    @AfterEach
    void close() {
        proxy.close();
    }

    private FencedStore direct(Policy policy) {
        return AzureBlobFencedStore.builder(Blobs.container(container)).policy(policy).build();
    }

    private FencedStore throughProxy(Policy policy) {
        return AzureBlobFencedStore
                .builder(Blobs.service(Blobs.through(proxy.httpEndpoint())).getBlobContainerClient(container))
                .policy(policy).build();
    }

    private static String plusOne(String value) {
        return Integer.toString(Integer.parseInt(value) + 1);
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void anUpdateWhoseReplyWasLostIsAppliedExactlyOnce(Policy policy) {
        direct(policy).write(FencingToken.of("counter", 1), key, "41");
        FencedStore lossy = throughProxy(policy);
        proxy.dropReplyTo("PUT /", () -> { });

        StoredValue written = lossy.update(TOKEN, key, v -> plusOne(v.orElseThrow()));

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(written).isEqualTo(new StoredValue(key, "42", 2));
        assertThat(direct(policy).read(key)).contains(new StoredValue(key, "42", 2));
    }

    @Test
    void anUpdateReplacedInTheWindowIsUnknownAndNotAppliedAgain() {
        FencedStore other = direct(Policy.MONOTONIC);
        other.write(FencingToken.of("counter", 1), key, "41");
        FencedStore lossy = throughProxy(Policy.MONOTONIC);
        proxy.dropReplyTo("PUT /", () -> other.write(TOKEN, key, "100"));

        assertThatThrownBy(() -> lossy.update(TOKEN, key, v -> plusOne(v.orElseThrow())))
                .isInstanceOf(WriteOutcomeUnknownException.class);

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(other.read(key)).as("the same-token write stays; the lost update is not applied on top of it")
                .contains(new StoredValue(key, "100", 2));
    }
}
