package dev.fencing.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaseOverlapCheckerTest {

    private static final long MS = 1_000_000;

    @Test
    void leasesOneAfterTheOtherDoNotOverlap() {
        List<LeaseSpan> spans = List.of(new LeaseSpan("a", "l", 1, 0, 90 * MS), new LeaseSpan("b", "l", 2, 100 * MS,
                200 * MS), new LeaseSpan("c", "l", 3, 200 * MS, 300 * MS));
        assertThat(LeaseOverlapChecker.check(spans, Duration.ZERO)).isEmpty();
    }

    @Test
    void anOlderLeaseToldValidAfterANewerWasGrantedIsAnOverlap() {
        LeaseSpan older = new LeaseSpan("p0 w1", "l", 5, 0, 1_500 * MS);
        LeaseSpan newer = new LeaseSpan("p1 w0", "l", 9, 1_000 * MS, 1_200 * MS);
        List<LeaseOverlap> found = LeaseOverlapChecker.check(List.of(newer, older), Duration.ZERO);
        assertThat(found).singleElement().satisfies(overlap -> {
            assertThat(overlap.older()).isEqualTo(older);
            assertThat(overlap.newer()).isEqualTo(newer);
            assertThat(overlap.overlap()).isEqualTo(Duration.ofMillis(500));
            assertThat(overlap.toString()).contains("p0 w1", "token 5", "500 ms", "p1 w0", "token 9");
        });
        assertThat(LeaseOverlapChecker.check(List.of(newer, older), Duration.ofMillis(500))).as("within the bound")
                .isEmpty();
    }

    @Test
    void theOverlapIsFoundBehindAShorterLeaseInBetween() {
        List<LeaseSpan> spans = List.of(new LeaseSpan("a", "l", 1, 0, 900 * MS), new LeaseSpan("b", "l", 2, 100 * MS,
                100 * MS), new LeaseSpan("c", "l", 3, 500 * MS, 600 * MS));
        assertThat(LeaseOverlapChecker.check(spans, Duration.ZERO)).extracting(o -> o.older().holder() + ">"
                + o.newer().holder()).containsExactly("a>b", "a>c");
    }

    @Test
    void differentLocksNeverOverlap() {
        List<LeaseSpan> spans = List.of(new LeaseSpan("a", "x", 1, 0, 900 * MS), new LeaseSpan("b", "y", 2, 100 * MS,
                200 * MS));
        assertThat(LeaseOverlapChecker.check(spans, Duration.ZERO)).isEmpty();
    }

    @Test
    void badInputIsRefused() {
        assertThatThrownBy(() -> new LeaseSpan("a", "l", 1, 10, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lastValidNanos 5 is before grantedNanos 10");
        assertThatThrownBy(() -> LeaseOverlapChecker.check(List.of(), Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-0.001S");
        LeaseSpan span = new LeaseSpan("a", "l", 1, 10, 20);
        assertThat(span.seenValidAt(15)).isSameAs(span);
        assertThat(span.seenValidAt(30).lastValidNanos()).isEqualTo(30);
    }
}
