package dev.fencing.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FencingTokenTest {

    @Test
    void tokensOfOneResourceOrderByValue() {
        FencingToken older = FencingToken.of("account-42", 33);
        FencingToken newer = FencingToken.of("account-42", 34);
        assertThat(newer.isNewerThan(older)).isTrue();
        assertThat(older.isNewerThan(newer)).isFalse();
        assertThat(older.isNewerThan(older)).isFalse();
        List<FencingToken> tokens = new ArrayList<>(List.of(newer, older));
        tokens.sort(null);
        assertThat(tokens).containsExactly(older, newer);
        assertThat(newer).hasToString("account-42#34");
    }

    @Test
    void tokensOfDifferentResourcesAreNotComparedByIsNewerThan() {
        assertThatThrownBy(() -> FencingToken.of("a", 2).isNewerThan(FencingToken.of("b", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a'")
                .hasMessageContaining("'b'");
    }

    @Test
    void badComponentsAreRefused() {
        assertThatThrownBy(() -> FencingToken.of("r", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1, got 0");
        assertThatThrownBy(() -> FencingToken.of(null, 1)).hasMessageContaining("resource must not be null");
        assertThatThrownBy(() -> FencingToken.of(" ", 1)).hasMessageContaining("blank");
        assertThatThrownBy(() -> FencingToken.of("x".repeat(257), 1)).hasMessageContaining("at most 256");
        assertThatThrownBy(() -> FencingToken.of("a\u0000b", 1)).hasMessageContaining("control characters");
    }

    @Test
    void staleTokenExceptionSaysWhatHappenedAndWhatToDo() {
        StaleTokenException older = StaleTokenException.of("accounts/42", FencingToken.of("lock", 6), 7, Policy.MONOTONIC);
        assertThat(older).hasMessage("Stale fencing token for 'accounts/42': presented 6 (lock 'lock'), but the store"
                + " has already accepted token 7. A newer lock holder has written, so this holder's lease is over:"
                + " stop, re-acquire the lock and re-read before writing again. Nothing was written.");
        assertThat(older.highWaterMark()).isEqualTo(7);

        StaleTokenException equal = StaleTokenException.of("k", FencingToken.of("lock", 7), 7, Policy.STRICT);
        assertThat(equal.getMessage()).contains("requires a token greater than 7 (policy STRICT)");
        assertThat(equal).isInstanceOf(FencingException.class);
    }

    @Test
    void policiesAcceptAsDocumented() {
        assertThat(Policy.MONOTONIC.accepts(5, 5)).isTrue();
        assertThat(Policy.MONOTONIC.accepts(4, 5)).isFalse();
        assertThat(Policy.STRICT.accepts(5, 5)).isFalse();
        assertThat(Policy.STRICT.accepts(6, 5)).isTrue();
    }

    /** A name with no UTF-8 form would be stored as different bytes by each server (adversarial review). */
    @Test
    void namesCutInTheMiddleOfACharacterAreRefusedAndWholeOnesKept() {
        String emoji = "order-\uD83D\uDE00";
        assertThat(FencingToken.of(emoji, 1).resource()).isEqualTo(emoji);
        assertThatThrownBy(() -> FencingToken.of(emoji.substring(0, 7), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate \\uD83D at index 6");
        assertThatThrownBy(() -> FencingToken.of("\uDE00order", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FencingToken.of("a\uD83Db", 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
