package dev.fencing.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BlobMetadataTest {

    @Test
    void namesAreCSharpIdentifiersAndValuesAscii() {
        Map<String, String> metadata = BlobMetadata.of(FencingToken.of("ключ é+%/ x", 42), "w1", true);
        assertThat(metadata.keySet()).allSatisfy(name -> assertThat(name).matches("[a-z_][a-z0-9_]*"));
        assertThat(metadata.values()).allSatisfy(value -> assertThat(value).matches("[\\x20-\\x7e]+"));
        assertThat(metadata).containsEntry("fencingtoken", "42").containsEntry("fencingwrite", "w1")
                .containsEntry("fencingdeleted", "true");
        assertThat(BlobMetadata.of(FencingToken.of("a", 1), "w", false)).doesNotContainKey("fencingdeleted");
    }

    @Test
    void everyLockNameComesBackExactly() {
        for (String lock : List.of("a b", "a+b", "a%20b", "A b", "é", "e\u0301", "ключ/🔒", "%", " ")) {
            assertThat(BlobMetadata.decodeLock(BlobMetadata.encodeLock(lock))).isEqualTo(lock);
        }
    }

    @Test
    void namesAreReadInAnyCase() {
        assertThat(BlobMetadata.get(Map.of("FencingToken", "7"), "fencingtoken")).isEqualTo("7");
        assertThat(BlobMetadata.get(Map.of("FENCINGTOKEN", "7", "fencingtoken", "7"), "fencingtoken")).isEqualTo("7");
        assertThat(BlobMetadata.get(Map.of("fencingtokens", "7"), "fencingtoken")).isNull();
        assertThat(BlobMetadata.get(null, "fencingtoken")).isNull();
        assertThatThrownBy(() -> BlobMetadata.get(Map.of("FencingToken", "7", "fencingtoken", "8"), "fencingtoken"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("two spellings");
    }
}
