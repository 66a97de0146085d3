package dev.fencing.dynamodb;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.HistoryRun;
import dev.fencing.testkit.servers.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The testkit's randomized history check, with one of three DynamoDbFencedStore instances behind a
 * proxy that now and then loses a reply the server already acted on. Before the fix (found by the
 * adversarial review, branch attack-stores) the SDK's retry made the checker find
 * INCREMENT_LOST_OR_DOUBLED; now a lost reply ends as "written" (the item carries the write id) or
 * as {@link dev.fencing.core.WriteOutcomeUnknownException}, which the history records as an unclear
 * outcome, and the history is consistent.
 */
class DynamoLostReplyHistoryIT {

    @Test
    void theHistoryCheckPassesWhenRepliesAreLost() {
        DynamoDbClient direct = Dynamo.newClient();
        String table = Dynamo.newTable(direct);
        try (ReplyDroppingProxy proxy = ReplyDroppingProxy.inFrontOf(TestServers.dynamoDb().endpoint());
                DynamoDbClient viaProxy = Dynamo.client(proxy.httpEndpoint());
                DynamoDbClient other = Dynamo.newClient()) {
            List<FencedStore> stores = List.of(
                    DynamoDbFencedStore.create(viaProxy, table, "pk", Policy.MONOTONIC, FencingListener.NONE),
                    DynamoDbFencedStore.create(direct, table, "pk", Policy.MONOTONIC, FencingListener.NONE),
                    DynamoDbFencedStore.create(other, table, "pk", Policy.MONOTONIC, FencingListener.NONE));
            stores.forEach(store -> store.read("warm-up"));
            ScheduledExecutorService dropper = Executors.newSingleThreadScheduledExecutor();
            dropper.scheduleAtFixedRate(proxy::dropNextReply, 50, 40, TimeUnit.MILLISECONDS);
            History history;
            try {
                history = HistoryRun.builder().keyPrefix("atk-" + UUID.randomUUID().toString().substring(0, 8))
                        .seed(17).timeLimit(Duration.ofSeconds(30)).build().run(stores);
            } finally {
                dropper.shutdownNow();
            }
            System.out.println("replies dropped: " + proxy.dropped());
            org.assertj.core.api.Assertions.assertThat(proxy.dropped()).as("replies were lost").isPositive();
            history.writeTo(java.nio.file.Path.of("target/lost-reply-history.txt"));
            HistoryChecker.check(history).assertPassed();
        } finally {
            direct.close();
        }
    }
}
