package dev.fencing.testkit;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;

/**
 * The reference store: every store made in one test shares one memory, as stores on one server do.
 * Its lost replies are simulated by the memory: the write is carried out and the writer is told the
 * outcome is unknown, the least a store may say.
 */
class InMemoryFencedStoreTest extends FencedStoreContract {

    private final InMemoryFencedStore memory = InMemoryFencedStore.memory();

    @Override
    protected FencedStore createStore(Policy policy) {
        return InMemoryFencedStore.over(memory, policy);
    }

    @Override
    protected LostReplies lostReplies() {
        return LostReplies.of(policy -> InMemoryFencedStore.over(memory, policy), memory::loseNextWriteReply,
                memory::lostReplies, false, () -> { });
    }
}
