package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.jdbc.KeyColumn.Kind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every spelling of one key is one canonical key, and a key the column cannot hold as given is refused. */
class KeyColumnTest {

    private static final BigInteger INT_MIN = BigInteger.valueOf(Integer.MIN_VALUE);
    private static final BigInteger INT_MAX = BigInteger.valueOf(Integer.MAX_VALUE);
    private static final BigInteger UNSIGNED_MAX = new BigInteger("18446744073709551615");

    private static KeyColumn integer(BigInteger min, BigInteger max) {
        return new KeyColumn("id", Kind.INTEGER, "t.id (int)", min, max, -1, -1);
    }

    private static KeyColumn text(Kind kind, long maxChars, long maxBytes) {
        return new KeyColumn("name", kind, "t.name (varchar)", null, null, maxChars, maxBytes);
    }

    @Test
    void everyIntegerSpellingIsOneKey() {
        KeyColumn id = integer(INT_MIN, INT_MAX);
        for (Object spelling : new Object[] {7, 7L, (short) 7, (byte) 7, BigInteger.valueOf(7), "7", "07", "+7"}) {
            assertThat(id.canonical(spelling)).as("%s", spelling).isEqualTo("7");
            assertThat(id.bind(spelling)).as("%s", spelling).isEqualTo(7L);
        }
        assertThat(id.canonical("-0")).isEqualTo("0");
    }

    @Test
    void anIntegerOutsideTheColumnsRangeIsRefusedAndItsBoundsAreHeld() {
        KeyColumn id = integer(INT_MIN, INT_MAX);
        assertThat(id.bind(Integer.MAX_VALUE)).isEqualTo((long) Integer.MAX_VALUE);
        assertThat(id.bind(Integer.MIN_VALUE)).isEqualTo((long) Integer.MIN_VALUE);
        assertThatThrownBy(() -> id.bind(Integer.MAX_VALUE + 1L)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside the range of t.id (int)");
        assertThatThrownBy(() -> id.bind(Integer.MIN_VALUE - 1L)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnsignedBigintAboveLongIsBoundAsADecimalAndLongsStayLongs() {
        KeyColumn id = integer(BigInteger.ZERO, UNSIGNED_MAX);
        assertThat(id.bind(UNSIGNED_MAX.toString())).isEqualTo(new BigDecimal(UNSIGNED_MAX));
        assertThat(id.bind(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(id.bind(BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE)))
                .isEqualTo(new BigDecimal(BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE)));
        assertThatThrownBy(() -> id.bind(-1)).hasMessageContaining("outside the range");

        KeyColumn signed = integer(new BigInteger("-99999999999999999999"), UNSIGNED_MAX);
        assertThat(signed.bind(Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
        assertThat(signed.bind(BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE)))
                .isInstanceOf(BigDecimal.class);
    }

    @Test
    void whatIsNotAnIntegerIsRefusedForAnIntegerColumn() {
        KeyColumn id = integer(INT_MIN, INT_MAX);
        for (Object wrong : new Object[] {"7.0", "1e3", " 7", "", 7.0, new BigDecimal("7"), UUID.randomUUID()}) {
            assertThatThrownBy(() -> id.canonical(wrong)).as("%s", wrong).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key column 'id' holds integers");
        }
        assertThatThrownBy(() -> id.bind("1".repeat(41))).hasMessageContaining("holds integers");
    }

    @Test
    void aUuidIsOneKeyInAnyCaseAndBoundAsTheColumnWantsIt() {
        UUID uuid = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
        KeyColumn postgres = new KeyColumn("id", Kind.UUID, "t.id (uuid)", null, null, -1, -1);
        KeyColumn mariadb = new KeyColumn("id", Kind.UUID_TEXT, "t.id (uuid)", null, null, -1, -1);
        for (Object spelling : new Object[] {uuid, "0F8FAD5B-D9CB-469F-A165-70867728950E", uuid.toString()}) {
            assertThat(postgres.canonical(spelling)).isEqualTo(uuid.toString());
            assertThat(mariadb.canonical(spelling)).isEqualTo(uuid.toString());
            assertThat(postgres.bind(spelling)).isEqualTo(uuid);
            assertThat(mariadb.bind(spelling)).isEqualTo(uuid.toString());
        }
        assertThatThrownBy(() -> postgres.bind("0f8fad5bd9cb469fa16570867728950e")).hasMessageContaining("holds UUIDs");
        assertThatThrownBy(() -> mariadb.bind(7)).hasMessageContaining("holds UUIDs").hasMessageContaining("Integer '7'");
    }

    @Test
    void exactTextKeepsEverySpaceAndPadSpaceTextDropsTrailingOnes() {
        KeyColumn exact = text(Kind.TEXT_EXACT, -1, -1);
        KeyColumn padded = text(Kind.TEXT_PAD_SPACE, -1, -1);
        assertThat(exact.canonical("a ")).isEqualTo("a ");
        assertThat(exact.bind(new StringBuilder("a "))).isEqualTo("a ");
        assertThat(padded.canonical("a  ")).isEqualTo("a");
        assertThat(padded.canonical(" a")).isEqualTo(" a");
        assertThat(padded.canonical("   ")).isEmpty();
        assertThat(padded.canonical("a\t")).isEqualTo("a\t");
        assertThat(padded.bind("a ")).isEqualTo("a");
        assertThatThrownBy(() -> exact.bind(7)).hasMessageContaining("holds text");
        assertThatThrownBy(() -> padded.canonical(null)).hasMessageContaining("got null");
    }

    @Test
    void textLongerThanTheColumnsCharactersIsRefusedAtTheLimitNotBefore() {
        KeyColumn three = text(Kind.TEXT_EXACT, 3, -1);
        assertThat(three.bind("abc")).isEqualTo("abc");
        assertThat(three.bind("\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00")).as("three code points").isNotNull();
        assertThatThrownBy(() -> three.bind("abc ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4 characters, at most 3");

        KeyColumn padded = text(Kind.TEXT_PAD_SPACE, 3, -1);
        assertThat(padded.bind("abc   ")).isEqualTo("abc");
        assertThatThrownBy(() -> padded.bind("abcd")).hasMessageContaining("without trailing spaces");
    }

    @Test
    void textLongerThanTheColumnsBytesIsRefusedAtTheLimitNotBefore() {
        KeyColumn fourBytes = text(Kind.TEXT_EXACT, -1, 4);
        assertThat(fourBytes.bind("\u00e9\u00e9")).isEqualTo("\u00e9\u00e9");
        assertThatThrownBy(() -> fourBytes.bind("\u00e9\u00e9e")).hasMessageContaining("5 bytes in UTF-8, at most 4");

        KeyColumn both = text(Kind.TEXT_EXACT, 2, 4);
        assertThatThrownBy(() -> both.bind("abc")).hasMessageContaining("3 characters, at most 2");
        assertThatThrownBy(() -> both.bind("\u00e9\u00e9\u00e9".substring(0, 2) + "\uD83D\uDE00"))
                .hasMessageContaining("at most 2");
        assertThatThrownBy(() -> both.bind("\uD83D\uDE00\u00e9")).hasMessageContaining("6 bytes in UTF-8, at most 4");
    }

    /** MySQL allows VARCHAR(0) and VARBINARY(0): they hold only the empty key. */
    @Test
    void aColumnOfZeroLengthHoldsOnlyTheEmptyKey() {
        KeyColumn noChars = text(Kind.TEXT_EXACT, 0, -1);
        KeyColumn noBytes = text(Kind.TEXT_EXACT, -1, 0);
        assertThat(noChars.bind("")).isEqualTo("");
        assertThat(noBytes.bind("")).isEqualTo("");
        assertThatThrownBy(() -> noChars.bind("a")).hasMessageContaining("1 characters, at most 0");
        assertThatThrownBy(() -> noBytes.bind("a")).hasMessageContaining("1 bytes in UTF-8, at most 0");
    }
}
