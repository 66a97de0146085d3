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

    @Test
    void aFencedWriteKeepsTheCallersMetadataAndAddsTokenResourceAndWriteId() {
        Map<String, String> metadata = Metadata.fenced(Map.of("owner", "billing"), FencingToken.of("orders/eu 1", 42),
                "w1", "a", "1", "b", "2");
        assertThat(metadata).containsOnly(Map.entry("owner", "billing"), Map.entry("fencing-token", "42"),
                Map.entry("fencing-resource", "orders%2Feu+1"), Map.entry("fencing-write", "w1"), Map.entry("a", "1"),
                Map.entry("b", "2"));
        assertThat(Metadata.fenced(null, FencingToken.of("r", 1), "w")).containsOnlyKeys("fencing-token",
                "fencing-resource", "fencing-write");
    }

    @Test
    void everyResourceComesBackExactlyAndIsStoredAsAscii() {
        for (String resource : new String[] {"r", "a b", "a+b", "100%", "k\u00f8ln/\u00e9t\u00e9", "x=y&z", "\uD83D\uDD12"}) {
            String stored = Metadata.encodeResource(resource);
            assertThat(stored).as(resource).matches("[\\x21-\\x7e]+");
            assertThat(Metadata.decodeResource(stored)).as(resource).isEqualTo(resource);
        }
        assertThat(Metadata.decodeResource(null)).isNull();
    }

    @Test
    void aNameMatchesOnlyItsOwnLettersInEitherCase() {
        assertThat(Metadata.get(Map.of("AZ", "1"), "az")).isEqualTo("1");
        assertThat(Metadata.get(Map.of("az", "1"), "AZ")).isEqualTo("1");
        // '@' and '[' sit right before 'A' and after 'Z'; '`' and '{' before 'a' and after 'z'
        assertThat(Metadata.get(Map.of("@[", "1"), "`{")).isNull();
        assertThat(Metadata.get(Map.of("`{", "1"), "@[")).isNull();
        assertThat(Metadata.get(Map.of("fencing-token", "1"), "fencing-tokens")).isNull();
        assertThat(Metadata.get(Map.of("fencing-tokens", "1"), "fencing-token")).isNull();
        assertThat(Metadata.get(Map.of(), "fencing-token")).isNull();
        assertThat(Metadata.get(Map.of("x", "1", "fencing-token", "5"), "fencing-token")).isEqualTo("5");
    }

    @Test
    void everyToolkitNameIsTakenOutOfTheUsersMetadataAndRefusedFromTheCaller() {
        Map<String, String> all = Map.of("fencing-token", "1", "Fencing-Deleted", "true", "fencing-write", "w",
                "FENCING-LAYOUT", "pointer", "fencing-resource", "r", "fencing-tokenx", "kept");
        assertThat(Metadata.user(all)).isEqualTo(Map.of("fencing-tokenx", "kept"));
        for (String name : all.keySet()) {
            if (!name.equals("fencing-tokenx")) {
                assertThatThrownBy(() -> Metadata.requireNoReservedKeys(Map.of("owner", "x", name, "v")))
                        .as(name).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + name + "'");
            }
        }
        Metadata.requireNoReservedKeys(Map.of("owner", "x", "fencing-tokenx", "kept"));
    }
}
