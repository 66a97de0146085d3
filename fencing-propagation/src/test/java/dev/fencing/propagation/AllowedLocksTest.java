package dev.fencing.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.testkit.RecordingListener;
import org.junit.jupiter.api.Test;

/** The declaration's matching rules: pure logic. */
class AllowedLocksTest {

    private final AllowedLocks locks = AllowedLocks.builder()
            .lock("billing-scheduler")
            .forPath("/orders/**", "order-*")
            .forPath("/reports/*", "report.daily", "report-[x]")
            .forPath("shop.Ledger/*", "ledger")
            .build();

    @Test
    void aNameIsMatchedExactlyAndAStarStandsForAnyRun() {
        assertThat(locks.allows("billing-scheduler", "/anything")).isTrue();
        assertThat(locks.allows("billing-schedular", "/anything")).isFalse();
        assertThat(locks.allows("Billing-scheduler", "/anything")).as("case").isFalse();
        assertThat(locks.allows("billing-scheduler ", "/anything")).as("a trailing space").isFalse();
        assertThat(locks.allows("order-7", "/orders/7/lines/2")).isTrue();
        assertThat(locks.allows("order-", "/orders/7")).isTrue();
        assertThat(locks.allows("order-7", "/ordersX")).isFalse();
        assertThat(locks.allows("order-7", "/invoices/7")).isFalse();
        assertThat(locks.allows("order-7\nbilling", "/orders/7")).as("any run, line breaks included").isTrue();
    }

    @Test
    void aSingleStarInAPathStopsAtASlashAndRegexCharactersAreLiteral() {
        assertThat(locks.allows("report.daily", "/reports/today")).isTrue();
        assertThat(locks.allows("reportXdaily", "/reports/today")).as("a dot is a dot").isFalse();
        assertThat(locks.allows("report-[x]", "/reports/today")).isTrue();
        assertThat(locks.allows("report-x", "/reports/today")).as("brackets are brackets").isFalse();
        assertThat(locks.allows("report.daily", "/reports/today/pdf")).isFalse();
        assertThat(locks.allows("ledger", "shop.Ledger/Post")).isTrue();
        assertThat(locks.allows("ledger", "shopXLedger/Post")).isFalse();
    }

    @Test
    void aRefusalNamesThePathTheDeclaredLocksAndReachesTheListener() {
        RecordingListener listener = new RecordingListener();
        FencingToken typo = FencingToken.of("order_7", 3);
        assertThatThrownBy(() -> locks.check(typo, "/orders/7", "PUT /orders/7", listener))
                .isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                    assertThat(e.key()).isEqualTo("PUT /orders/7");
                    assertThat(e.presented()).isEqualTo(typo);
                    assertThat(e.boundResource()).isEqualTo("one of billing-scheduler, order-*");
                });
        assertThat(listener.writeFailures()).hasSize(1);
        locks.check(FencingToken.of("order-7", 3), "/orders/7", "PUT /orders/7", listener);
        assertThat(listener.writeFailures()).hasSize(1);
        AllowedLocks onePath = AllowedLocks.builder().forPath("/a", "x").build();
        assertThatThrownBy(() -> onePath.check(FencingToken.of("x", 1), "/b", "GET /b", listener))
                .isInstanceOfSatisfying(ForeignTokenException.class,
                        e -> assertThat(e.boundResource()).contains("no lock is declared for /b"));
    }

    @Test
    void badDeclarationsAreRefusedWithTheBadValue() {
        assertThatThrownBy(() -> AllowedLocks.of()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AllowedLocks.of("*")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'*'").hasMessageContaining("allows every lock");
        assertThatThrownBy(() -> AllowedLocks.of(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("' '");
        assertThatThrownBy(() -> AllowedLocks.builder().forPath("", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AllowedLocks.builder().forPath("/a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'/a'");
        assertThatThrownBy(() -> AllowedLocks.builder().build()).isInstanceOf(IllegalStateException.class);
    }
}
