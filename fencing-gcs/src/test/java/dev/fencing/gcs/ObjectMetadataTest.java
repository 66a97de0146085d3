package dev.fencing.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.StorageException;
import dev.fencing.core.FencingToken;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The toolkit's metadata, object names and error reading: pure functions, no server. */
class ObjectMetadataTest {

    @Test
    void aWriteAndATombstoneCarryTheTokenTheLockAndTheWriteId() {
        Map<String, String> write = ObjectMetadata.of(FencingToken.of("orders/é b", 42), "w1", false);
        assertThat(write).containsExactlyInAnyOrderEntriesOf(Map.of("fencing-token", "42",
                "fencing-lock", "orders%2F%C3%A9+b", "fencing-write", "w1"));
        Map<String, String> tombstone = ObjectMetadata.of(FencingToken.of("orders", 43), "w2", true);
        assertThat(tombstone).containsEntry("fencing-deleted", "true").containsEntry("fencing-token", "43")
                .containsEntry("fencing-write", "w2").containsEntry("fencing-lock", "orders");
        ObjectState state = ObjectState.of(7, write);
        assertThat(state).isEqualTo(new ObjectState(true, 7, OptionalLong.of(42), "orders/é b", false, "w1"));
        assertThat(state.madeBy("w1")).isTrue();
        assertThat(state.madeBy("w2")).isFalse();
        assertThat(state.ifGenerationMatch()).isEqualTo(7);
        assertThat(ObjectState.of(8, tombstone).tombstone()).isTrue();
        assertThat(ObjectState.ABSENT.ifGenerationMatch()).isZero();
        assertThat(ObjectState.ABSENT.madeBy("w1")).isFalse();
    }

    @Test
    void keysAreReadInAnyCaseAndTwoSpellingsThatDisagreeFailClosed() {
        assertThat(ObjectMetadata.get(Map.of("Fencing-Token", "9"), "fencing-token")).isEqualTo("9");
        assertThat(ObjectMetadata.get(Map.of("FENCING-TOKEN", "9"), "fencing-token")).isEqualTo("9");
        assertThat(ObjectMetadata.get(Map.of("fencing_token", "9"), "fencing-token")).isNull();
        assertThat(ObjectMetadata.get(Map.of("fencing-tokens", "9"), "fencing-token")).isNull();
        assertThat(ObjectMetadata.get(null, "fencing-token")).isNull();
        Map<String, String> agree = new LinkedHashMap<>();
        agree.put("fencing-token", "9");
        agree.put("Fencing-Token", "9");
        assertThat(ObjectMetadata.get(agree, "fencing-token")).isEqualTo("9");
        Map<String, String> disagree = new LinkedHashMap<>();
        disagree.put("fencing-token", "9");
        disagree.put("Fencing-Token", "1");
        assertThatThrownBy(() -> ObjectMetadata.get(disagree, "fencing-token")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'fencing-token' = '9'").hasMessageContaining("'Fencing-Token' = '1'");
        assertThat(ObjectMetadata.asciiEqualsIgnoreCase("a", "ab")).isFalse();
        assertThat(ObjectMetadata.asciiEqualsIgnoreCase("Z@[", "z@[")).isTrue();
        assertThat(ObjectMetadata.asciiEqualsIgnoreCase("A", "a")).isTrue();
        assertThat(ObjectMetadata.asciiEqualsIgnoreCase("@", "`")).isFalse();
        assertThat(ObjectMetadata.asciiEqualsIgnoreCase("[", "{")).isFalse();
    }

    @Test
    void anObjectWithoutTheToolkitsMetadataHasNoTokenAndABadTokenFailsClosed() {
        assertThat(ObjectState.of(3, null)).isEqualTo(new ObjectState(true, 3, OptionalLong.empty(), null, false, null));
        assertThat(ObjectState.of(3, Map.of("fencing-deleted", "yes")).tombstone()).isFalse();
        assertThatThrownBy(() -> ObjectState.of(3, Map.of("fencing-token", "9e9")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'9e9' is not a token");
        assertThat(ObjectMetadata.decodeLock(null)).isNull();
        assertThat(ObjectMetadata.decodeLock(ObjectMetadata.encodeLock("a+b %"))).isEqualTo("a+b %");
    }

    @Test
    void objectNamesFollowGcsRules() {
        assertThat(ObjectNames.of("p/", "k")).isEqualTo("p/k");
        assertThat(ObjectNames.of("", ".x")).isEqualTo(".x");
        assertThat(ObjectNames.of("a", ".")).isEqualTo("a.");
        assertThat(ObjectNames.of("", "x".repeat(1024))).hasSize(1024);
        assertThatThrownBy(() -> ObjectNames.of("", "x".repeat(1025))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 1025 bytes");
        assertThatThrownBy(() -> ObjectNames.of("x".repeat(1020), "é".repeat(3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 1026 bytes");
        assertThatThrownBy(() -> ObjectNames.of("", ".")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'.' or '..'");
        assertThatThrownBy(() -> ObjectNames.of("", "..")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ObjectNames.of(".well-known/", "acme-challenge/t"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acme-challenge");
        assertThatThrownBy(() -> ObjectNames.of("", "a\rb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index 1").hasMessageContaining("'a?b'");
        assertThatThrownBy(() -> ObjectNames.of("", "ab\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index 2");
        assertThat(ObjectNames.requirePrefix("")).isEmpty();
        assertThat(ObjectNames.requirePrefix(".well-known/")).isEqualTo(".well-known/");
        assertThatThrownBy(() -> ObjectNames.requirePrefix("x".repeat(1024))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 1024 bytes");
        assertThatThrownBy(() -> ObjectNames.requirePrefix("a\rb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix must not contain");
    }

    @Test
    void errorsAreReadOnce() {
        assertThat(GcsErrors.classifyUpload(new StorageException(412, "conditionNotMet"))).isEqualTo(GcsErrors.Kind.CHANGED);
        assertThat(GcsErrors.classifyUpload(new StorageException(404, "no bucket"))).isEqualTo(GcsErrors.Kind.NO_BUCKET);
        assertThat(GcsErrors.classifyUpload(new StorageException(503, "backend"))).isEqualTo(GcsErrors.Kind.UNCLEAR);
        assertThat(GcsErrors.classifyUpload(new StorageException(500, "internal"))).isEqualTo(GcsErrors.Kind.UNCLEAR);
        assertThat(GcsErrors.classifyUpload(new StorageException(429, "slow down"))).isEqualTo(GcsErrors.Kind.OTHER);
        assertThat(GcsErrors.classifyUpload(new StorageException(403, "forbidden"))).isEqualTo(GcsErrors.Kind.OTHER);
        assertThat(GcsErrors.classifyUpload(new StorageException(400, "bad"))).isEqualTo(GcsErrors.Kind.OTHER);
        StorageException timeout = new StorageException(0, "read", new SocketTimeoutException("Read timed out"));
        assertThat(GcsErrors.classifyUpload(timeout)).isEqualTo(GcsErrors.Kind.UNCLEAR);
        StorageException refused = new StorageException(0, "connect", new ConnectException("Connection refused"));
        assertThat(GcsErrors.classifyUpload(refused)).isEqualTo(GcsErrors.Kind.NOT_SENT);
        assertThat(GcsErrors.classifyUpload(new IllegalStateException(new IOException("reset"))))
                .isEqualTo(GcsErrors.Kind.UNCLEAR);
        assertThat(GcsErrors.unanswered(timeout)).isTrue();
        assertThat(GcsErrors.unanswered(refused)).isTrue();
        assertThat(GcsErrors.unanswered(new StorageException(503, "backend"))).isFalse();
        assertThat(GcsErrors.unanswered(new IllegalStateException())).isFalse();
        StorageException named = GcsErrors.noBucket("orders", new StorageException(404, "x"));
        assertThat(named.getCode()).isEqualTo(404);
        assertThat(named).hasMessageContaining("bucket 'orders' does not exist");
    }
}
