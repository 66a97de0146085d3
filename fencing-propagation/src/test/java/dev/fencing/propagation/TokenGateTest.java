package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.RecordingListener;
import org.junit.jupiter.api.Test;

class TokenGateTest {

    @Test
    void aGateOverTheServicesOwnStoreNeverTouchesAnItemSpelledLikeALock() {
        FencedStore data = InMemoryFencedStore.create();
        data.write(FencingToken.of("order-7", 3), "order-7", "the order");
        TokenGate gate = TokenGate.over(data);

        gate.admit(FencingToken.of("order-7", 4));

        assertThat(data.read("order-7").orElseThrow().value()).isEqualTo("the order");
        assertThat(data.highWaterMark(TokenGate.keyOf("order-7"))).hasValue(4);
        assertThatThrownBy(() -> gate.admit(FencingToken.of("order-7", 3))).isInstanceOf(StaleTokenException.class);
    }

    @Test
    void marksAreKeptPerLockByItsExactName() {
        FencedStore marks = InMemoryFencedStore.builder().build();
        TokenGate gate = TokenGate.over(marks);
        gate.admit(FencingToken.of("A", 5));
        gate.admit(FencingToken.of("%41", 1));
        gate.admit(FencingToken.of("a", 1));
        gate.admit(FencingToken.of("A ", 1));
        gate.admit(FencingToken.of("A", 5)); // the same holder's next request
        assertThatThrownBy(() -> gate.admit(FencingToken.of("A", 4))).isInstanceOf(StaleTokenException.class);
        assertThat(TokenGate.keyOf("😀".repeat(128))).hasSize(56).startsWith(TokenGate.KEY_PREFIX);
        assertThat(TokenGate.keyOf("A")).isNotEqualTo(TokenGate.keyOf("%41")).isNotEqualTo(TokenGate.keyOf("a"));
    }

    @Test
    void aRefusalReachesTheStoresListener() {
        RecordingListener listener = new RecordingListener();
        TokenGate gate = TokenGate.over(InMemoryFencedStore.builder().listener(listener).build());
        gate.admit(FencingToken.of("l", 2));
        assertThatThrownBy(() -> gate.admit(FencingToken.of("l", 1))).isInstanceOf(StaleTokenException.class);
        assertThat(listener.staleRejected()).isEqualTo(1);
        assertThat(listener.accepted()).isEqualTo(1);
        assertThatThrownBy(() -> TokenGate.over(null)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A STRICT store would refuse a holder's second request, which carries the same token. */
    @Test
    void aGateRefusesAStrictStoreWhenBuilt() {
        FencedStore strict = InMemoryFencedStore.builder().policy(Policy.STRICT).build();
        assertThatThrownBy(() -> TokenGate.over(strict)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("STRICT").hasMessageContaining("MONOTONIC");
    }

    /** A door without paths declares its locks on the gate: a typo'd lock is refused and gets no mark. */
    @Test
    void aGateBehindADeclarationRefusesAnUndeclaredLockBeforeItsMark() {
        FencedStore marks = InMemoryFencedStore.builder().build();
        RecordingListener listener = new RecordingListener();
        TokenGate gate = TokenGate.over(marks).onlyFor(AllowedLocks.builder().lock("billing-scheduler")
                .forPath("/orders/**", "order-*").build(), listener);
        gate.admit(FencingToken.of("billing-scheduler", 3));
        assertThatThrownBy(() -> gate.admit(FencingToken.of("billing-schedular", 4)))
                .isInstanceOfSatisfying(dev.fencing.core.ForeignTokenException.class,
                        e -> assertThat(e.boundResource()).isEqualTo("billing-scheduler"));
        assertThatThrownBy(() -> gate.admit(FencingToken.of("order-7", 1))).as("a lock declared for some paths only")
                .isInstanceOf(dev.fencing.core.ForeignTokenException.class);
        assertThat(marks.highWaterMark(TokenGate.keyOf("billing-schedular"))).isEmpty();
        assertThat(marks.highWaterMark(TokenGate.keyOf("billing-scheduler"))).hasValue(3);
        assertThat(listener.writeFailures()).hasSize(2);
    }
}
