package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

class SlotTagsTest {

    @Test
    void everySlotHasATagThatHashesToIt() {
        for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
            String tag = SlotTags.forSlot(slot);
            assertThat(SlotHash.getSlot("prefix{" + tag + "}:done:00ff")).as("slot %d, tag %s", slot, tag)
                    .isEqualTo(slot);
            assertThat(tag).doesNotContain("{", "}");
        }
    }

    @Test
    void aMarkerOfAKeyStartingWithABraceSharesTheItemsSlot() {
        String item = "p:{}x}:item";
        String marker = "p:{" + SlotTags.forSlot(SlotHash.getSlot(item)) + "}:done:ab";
        assertThat(SlotHash.getSlot(marker)).isEqualTo(SlotHash.getSlot(item));
    }

    @Test
    void slotsOutsideTheRangeAreRefused() {
        assertThatThrownBy(() -> SlotTags.forSlot(16384)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("16384");
        assertThatThrownBy(() -> SlotTags.forSlot(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
