package dev.fencing.testkit;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;

/**
 * The reference store: every store made in one test shares one memory, as stores on one server do.
 * Its lost replies are simulated by the memory: the write is carried out and the writer is told the
 * outcome is unknown, the least a store may say.
 */
class InMemoryFencedStoreTest extends FencedStoreContract {

    private final InMemoryStorage memory = new InMemoryStorage();

    @Override
    protected FencedStore createStore(Policy policy) {
        return InMemoryFencedStore.builder().storage(memory).policy(policy).build();
    }

    @Override
    protected LostReplies lostReplies() {
        return LostReplies.of(policy -> InMemoryFencedStore.builder().storage(memory).policy(policy).build(), memory::loseNextWriteReply,
                memory::lostReplies, false, () -> { });
    }
}
