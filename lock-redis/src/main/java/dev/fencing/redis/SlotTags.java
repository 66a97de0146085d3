package dev.fencing.redis;

import io.lettuce.core.cluster.SlotHash;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * For each Redis Cluster slot, a short hash tag that hashes to it: {@code "{" + forSlot(s) + "}"}
 * in a key puts the key in slot {@code s}. Found by counting up in decimal and remembered; about
 * 16 thousand CRC16s for the first question of a slot, none after.
 */
final class SlotTags {

    private static final AtomicReferenceArray<String> TAGS = new AtomicReferenceArray<>(SlotHash.SLOT_COUNT);

    private SlotTags() {}

    /** A tag of decimal digits that hashes to {@code slot} (0 to 16383). */
    static String forSlot(int slot) {
        if (slot < 0 || slot >= SlotHash.SLOT_COUNT) {
            throw new IllegalArgumentException("slot must be 0 to " + (SlotHash.SLOT_COUNT - 1) + ", got " + slot);
        }
        String tag = TAGS.get(slot);
        if (tag != null) {
            return tag;
        }
        for (long candidate = 0; ; candidate++) {
            String text = Long.toString(candidate);
            int hashed = SlotHash.getSlot(text);
            TAGS.compareAndSet(hashed, null, text);
            if (hashed == slot) {
                return TAGS.get(slot);
            }
        }
    }
}
