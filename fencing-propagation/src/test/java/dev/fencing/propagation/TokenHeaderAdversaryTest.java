package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Spellings of a lock name that the documented grammar does not allow. */
class TokenHeaderAdversaryTest {

    /**
     * The grammar's escape is {@code %XX} with two hex digits; {@code Character.digit} also takes
     * fullwidth and other scripts' digits, so {@code %４１} would be read as {@code A}: a second
     * spelling of a lock that no encoder produces and a proxy or log comparing bytes would miss.
     */
    @ParameterizedTest
    @ValueSource(strings = {"5; lock=%\uFF14\uFF11", "5; lock=%\u0664\u0661", "5; lock=%\uFF12\uFF26",
        "5; lock=%4\uFF11", "5; lock=a%\uFF13\uFF21"})
    void anEscapeWithNonAsciiDigitsIsMalformed(String header) {
        assertThatThrownBy(() -> TokenHeader.parse(header)).isInstanceOf(MalformedTokenException.class);
    }
}
