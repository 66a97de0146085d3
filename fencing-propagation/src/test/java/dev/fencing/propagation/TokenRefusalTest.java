package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TokenRefusalTest {

    @Test
    void aStaleRefusalRoundTripsWithKeyTokensMarkAndPolicy() {
        StaleTokenException stale = StaleTokenException.of("key; mark=1", FencingToken.of("a/b; c", 42), 43, Policy.STRICT);
        String header = TokenRefusal.header(stale).orElseThrow();

        assertThat(TokenRefusal.read(header)).isInstanceOfSatisfying(StaleTokenException.class, back -> {
            assertThat(back.key()).isEqualTo("key; mark=1");
            assertThat(back.presented()).isEqualTo(FencingToken.of("a/b; c", 42));
            assertThat(back.highWaterMark()).isEqualTo(43);
            assertThat(back.policy()).isEqualTo(Policy.STRICT);
            assertThat(back.getMessage()).isEqualTo(stale.getMessage());
        });
        assertThat(TokenRefusal.httpStatus(stale)).isEqualTo(409);
    }

    @Test
    void aForeignRefusalRoundTripsWithTheBoundLock() {
        ForeignTokenException foreign = ForeignTokenException.of("k", FencingToken.of("A", 5), "%41");
        assertThat(TokenRefusal.read(TokenRefusal.header(foreign).orElseThrow()))
                .isInstanceOfSatisfying(ForeignTokenException.class, back -> {
                    assertThat(back.boundResource()).isEqualTo("%41");
                    assertThat(back.presented()).isEqualTo(FencingToken.of("A", 5));
                    assertThat(back.key()).isEqualTo("k");
                });
    }

    @Test
    void anUpdateThatKeptLosingRacesAndAnUnknownOutcomeRoundTripAsThemselves() {
        ConcurrentUpdateException busy = ConcurrentUpdateException.gaveUp("k/1", 7);
        assertThat(TokenRefusal.httpStatus(busy)).isEqualTo(409);
        assertThat(TokenRefusal.read(TokenRefusal.header(busy).orElseThrow()))
                .isInstanceOfSatisfying(ConcurrentUpdateException.class, back -> {
                    assertThat(back.key()).isEqualTo("k/1");
                    assertThat(back.attempts()).isEqualTo(7);
                });
        assertThat(TokenRefusal.problemJson(busy)).contains(TokenRefusal.CONCURRENT_TYPE, "\"attempts\":7");

        WriteOutcomeUnknownException unknown = WriteOutcomeUnknownException.of("k 2", new IOException("reset"));
        assertThat(TokenRefusal.httpStatus(unknown)).isEqualTo(500);
        assertThat(TokenRefusal.read(TokenRefusal.header(unknown).orElseThrow()))
                .isInstanceOfSatisfying(WriteOutcomeUnknownException.class, back -> {
                    assertThat(back.key()).isEqualTo("k 2");
                    assertThat(back.getCause()).isInstanceOf(IOException.class);
                });
        assertThat(TokenRefusal.problemJson(unknown)).contains(TokenRefusal.UNKNOWN_TYPE, "\"status\":500");
        assertThat(TokenRefusal.find(new RuntimeException(unknown))).isSameAs(unknown);
    }

    @Test
    void theProblemDocumentIsJsonWithTheRfc9457MembersAndTheDetails() {
        StaleTokenException stale = StaleTokenException.of("k\"\\\u0001", FencingToken.of("l", 4), 9, Policy.MONOTONIC);
        assertThat(TokenRefusal.problemJson(stale)).startsWith("{\"type\":\"" + TokenRefusal.STALE_TYPE + "\",")
                .contains("\"title\":\"Stale fencing token\"", "\"status\":409", "\"lock\":\"l\"",
                        "\"key\":\"k\\\"\\\\\\u0001\"", "\"presented\":4", "\"mark\":9", "\"policy\":\"MONOTONIC\"")
                .endsWith("}");
        assertThat(TokenRefusal.problemJson(new MalformedTokenException("bad"))).contains("\"status\":400",
                TokenRefusal.MALFORMED_TYPE);
        assertThat(TokenRefusal.problemJson(new MissingTokenException("PUT /x"))).contains("\"status\":428",
                TokenRefusal.MISSING_TYPE);
        assertThat(TokenRefusal.header(new MissingTokenException("PUT /x"))).isEmpty();
    }

    @Test
    void anythingElseIsNotARefusal() {
        assertThatThrownBy(() -> TokenRefusal.httpStatus(new IllegalStateException("boom")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a token refusal");
        assertThat(TokenRefusal.find(new RuntimeException(new IllegalStateException()))).isNull();
        StaleTokenException stale = StaleTokenException.of("k", FencingToken.of("l", 1), 2, Policy.MONOTONIC);
        assertThat(TokenRefusal.find(new RuntimeException("wrapped", stale))).isSameAs(stale);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "stale", "stale; token=1; lock=l; key=k; mark=2", "stale; token=1; lock=l; key=k; mark=2;"
        + " policy=LAX", "stale; token=x; lock=l; key=k; mark=2; policy=STRICT",
        "stale; token=1; token=1; lock=l; key=k; mark=2", "other; token=1; lock=l; key=k; bound=b",
        "foreign; token=1; lock=l; key=k", "stale; token=1; lock=l; key=k; mark=2; policy=STRICT; extra=1", "unknown", "unknown; key=k; extra=1",
        "concurrent; key=k", "concurrent; key=k; attempts=x"})
    void aMalformedRefusalHeaderIsReportedNotGuessed(String header) {
        assertThatThrownBy(() -> TokenRefusal.read(header)).isInstanceOf(MalformedTokenException.class)
                .hasMessageContaining("Fencing-Refusal");
    }
}
