package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The toolkit's own objects: readable text, never the same bytes twice, and a pointer gives its data key back. */
class PointerTest {

    private static final FencingToken TOKEN = FencingToken.of("r", 42);

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void aPointerAndATombstoneSayWhatTheyAre() {
        assertThat(text(Pointer.pointer(TOKEN, "w1", ".fencing-data/k/w1")))
                .isEqualTo("fencing-pointer/1\ntoken: 42\nwrite: w1\ndata: .fencing-data/k/w1\n");
        assertThat(text(Pointer.tombstone(TOKEN, "w2"))).isEqualTo("fencing-tombstone/1\ntoken: 42\nwrite: w2\n");
    }

    @Test
    void twoWritesWithOneTokenNeverPutTheSameBytes() {
        assertThat(Pointer.pointer(TOKEN, "w1", "d")).isNotEqualTo(Pointer.pointer(TOKEN, "w2", "d"));
        assertThat(Pointer.tombstone(TOKEN, "w1")).isNotEqualTo(Pointer.tombstone(TOKEN, "w2"));
    }

    @ParameterizedTest
    @ValueSource(strings = {".fencing-data/k/w1", "a", "with spaces/and data: inside", "\u00e9t\u00e9/\uD83D\uDD12"})
    void aPointerGivesBackTheDataKeyItNames(String dataKey) {
        assertThat(Pointer.dataKey("b", "k", Pointer.pointer(TOKEN, "w", dataKey))).isEqualTo(dataKey);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "fencing-tombstone/1\ntoken: 42\nwrite: w\n",
        "fencing-pointer/1\ntoken: 42\nwrite: w\n",
        "fencing-pointer/1\ntoken: 42\nwrite: w\ndata: d",
        "token: 42\nwrite: w\ndata: d\n",
        "fencing-pointer/2\ndata: d\n",
        "hand-written data: d\n",
        ""
    })
    void aBodyThatIsNotAPointerIsRefusedNamingTheObject(String body) {
        assertThatThrownBy(() -> Pointer.dataKey("bucket", "key", body.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("s3://bucket/key");
    }

    @Test
    void aPointersMetadataCarriesTheTokenAndTheLayout() {
        assertThat(Pointer.pointerMetadata(FencingToken.of("a/b", 7), "w")).containsEntry(Metadata.TOKEN, "7")
                .containsEntry(Metadata.WRITE, "w").containsEntry(Metadata.LAYOUT, Metadata.POINTER)
                .containsEntry(Metadata.RESOURCE, "a%2Fb").hasSize(4);
        assertThat(Pointer.CONTENT_TYPE).isEqualTo("text/plain; charset=utf-8");
    }
}
