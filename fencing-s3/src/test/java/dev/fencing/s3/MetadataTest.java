package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The toolkit's metadata names are found in any case, and only ASCII letters fold. */
class MetadataTest {

    @Test
    void theToolkitsNamesAreFoundInAnyCase() {
        Map<String, String> minio = Map.of("Fencing-Token", "42", "Fencing-Resource", "a%2Fb", "Fencing-Deleted", "true",
                "FENCING-WRITE", "w1", "Owner", "billing");
        ObjectState state = ObjectState.of("\"etag\"", minio);
        assertThat(state.token()).hasValue(42);
        assertThat(state.resource()).isEqualTo("a/b");
        assertThat(state.tombstone()).isTrue();
        assertThat(state.writeId()).isEqualTo("w1");
        assertThat(Metadata.user(minio)).isEqualTo(Map.of("Owner", "billing"));
    }

    @Test
    void aPointerIsRecognizedWhateverTheCaseOfItsName() {
        Map<String, String> pointer = Metadata.fenced(Map.of(), FencingToken.of("r", 3), "w", Metadata.LAYOUT,
                Metadata.POINTER);
        Map<String, String> capitalized = new HashMap<>();
        pointer.forEach((name, value) -> capitalized.put(CapitalizedMetadataIT.canonical(name), value));
        assertThat(ObjectState.of("e", capitalized).pointer()).isTrue();
        assertThat(ObjectState.of("e", capitalized).token()).hasValue(3);
    }

    @Test
    void twoSpellingsWithDifferentValuesAreRefusedNamingBoth() {
        Map<String, String> both = Map.of("fencing-token", "42", "Fencing-Token", "7");
        assertThatThrownBy(() -> ObjectState.of("e", both)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fencing-token").hasMessageContaining("Fencing-Token");
        assertThat(ObjectState.of("e", Map.of("fencing-token", "42", "FENCING-TOKEN", "42")).token()).hasValue(42);
    }

    @Test
    void onlyAsciiLettersFold() {
        // U+0131 (dotless i) upper-cases to 'I' in Java: it must not pass for the toolkit's name
        assertThat(ObjectState.of("e", Map.of("fenc\u0131ng-token", "42")).token()).isEmpty();
        assertThat(Metadata.user(Map.of("fenc\u0131ng-token", "42"))).containsKey("fenc\u0131ng-token");
    }

    @Test
    void callerMetadataMayNotSetAToolkitNameInAnyCase() {
        assertThatThrownBy(() -> Metadata.requireNoReservedKeys(Map.of("Fencing-Token", "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Fencing-Token");
    }
}
