package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TokenHeaderTest {

    @ParameterizedTest
    @ValueSource(strings = {"orders", "orders/7", "a b", "%41", "ключ", "😀", "lock=1; x", "~-._", "Ä", "e\u0301", "a,b",
        "x\"y\\z"})
    void everyNameTheToolkitAcceptsRoundTrips(String lock) {
        for (long value : new long[] {1, 42, 1L << 53, (1L << 53) + 1, Long.MAX_VALUE}) {
            FencingToken token = FencingToken.of(lock, value);
            String header = TokenHeader.format(token);
            assertThat(header).matches("[1-9][0-9]*; lock=[A-Za-z0-9._~%-]+");
            assertThat(TokenHeader.parse(header)).isEqualTo(token);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"42; lock=orders%2F7|orders/7|42", "42;lock=orders%2f7|orders/7|42",
        " 42 ;\tlock=%41 |A|42", "9223372036854775807; lock=x|x|9223372036854775807"})
    void theDocumentedSpellingsParse(String header, String lock, long value) {
        assertThat(TokenHeader.parse(header)).isEqualTo(FencingToken.of(lock, value));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"5|no ';'", "-5; lock=x|decimal digits only", "0; lock=x|at least 1",
        "05; lock=x|leading zeros", "9223372036854775808; lock=x|larger than 9223372036854775807",
        "5; lock=|is empty", "5; lock=a b|found ' ' at index 1", "5; lock=%zz|two hex digits",
        "5; lock=%C3%28|not UTF-8", "5; lock=%00|control characters", "5; name=x|expected 'lock='",
        "; lock=x|the token is missing"})
    void malformedValuesNameWhatIsWrong(String header, String message) {
        assertThatThrownBy(() -> TokenHeader.parse(header)).isInstanceOf(MalformedTokenException.class)
                .hasMessageContaining(message).hasMessageContaining("Fencing-Token");
    }

    @org.junit.jupiter.api.Test
    void anOversizedValueIsRefusedByLengthAndNotEchoedWhole() {
        String header = "5; lock=" + "a".repeat(TokenHeader.MAX_LENGTH);
        assertThatThrownBy(() -> TokenHeader.parse(header)).isInstanceOf(MalformedTokenException.class)
                .hasMessageContaining("at most " + TokenHeader.MAX_LENGTH).hasMessageNotContaining("aaaa");
        assertThatThrownBy(() -> TokenHeader.parse("5; lock=" + "a".repeat(300))).isInstanceOf(MalformedTokenException.class)
                .hasMessageContaining("…");
    }

    @org.junit.jupiter.api.Test
    void theLongestNameFitsInTheLimit() {
        FencingToken longest = FencingToken.of("😀".repeat(128), Long.MAX_VALUE);
        String header = TokenHeader.format(longest);
        assertThat(header.length()).isLessThanOrEqualTo(TokenHeader.MAX_LENGTH);
        assertThat(TokenHeader.parse(header)).isEqualTo(longest);
    }
}
