package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.s3.PartPlan.Part;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cutting a file into parts: the fill loop at its boundaries, with small parts and with S3's largest. */
class PartPlanTest {

    private static final long GIB = 1024L * 1024 * 1024;

    @Test
    void theLastPartTakesTheRemainderAndAnExactMultipleHasNoEmptyTail() {
        assertThat(PartPlan.split(10, 5)).containsExactly(new Part(1, 0, 5), new Part(2, 5, 5));
        assertThat(PartPlan.split(11, 5)).containsExactly(new Part(1, 0, 5), new Part(2, 5, 5), new Part(3, 10, 1));
        assertThat(PartPlan.split(9, 5)).containsExactly(new Part(1, 0, 5), new Part(2, 5, 4));
        assertThat(PartPlan.split(4, 5)).containsExactly(new Part(1, 0, 4));
        assertThat(PartPlan.split(5, 5)).containsExactly(new Part(1, 0, 5));
        assertThat(PartPlan.split(0, 5)).as("an empty file is one empty part").containsExactly(new Part(1, 0, 0));
    }

    /** The old loop compared a byte array's length with the part size and stopped after ~2 GiB. */
    @Test
    void partsAbove2GiBAreFilledAndTheWholeFileIsCovered() {
        long size = 12 * GIB + 7;
        List<Part> parts = PartPlan.of(size, 5 * GIB);
        assertThat(parts).containsExactly(new Part(1, 0, 5 * GIB), new Part(2, 5 * GIB, 5 * GIB),
                new Part(3, 10 * GIB, 2 * GIB + 7));
        assertThat(PartPlan.of(3 * GIB, 5 * GIB / 2)).extracting(Part::length).containsExactly(5 * GIB / 2, GIB / 2);
        assertThat(parts.stream().mapToLong(Part::length).sum()).isEqualTo(size);
    }

    @Test
    void s3sLimitsAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> PartPlan.of(100, 1024)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partSize must be between 5 MiB").hasMessageContaining("got 1024");
        assertThatThrownBy(() -> PartPlan.of(100, 5 * GIB + 1)).hasMessageContaining("got " + (5 * GIB + 1));
        assertThatThrownBy(() -> PartPlan.of(10_001L * PartPlan.MIN_PART, PartPlan.MIN_PART))
                .hasMessageContaining("needs 10001 parts").hasMessageContaining("use a partSize of at least");
        assertThatThrownBy(() -> PartPlan.of(PartPlan.MAX_OBJECT + 1, 5 * GIB)).hasMessageContaining("5 TiB");
        assertThat(PartPlan.of(10_000L * PartPlan.MIN_PART, PartPlan.MIN_PART)).hasSize(10_000);
    }
}
