package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.LockProviderContract;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.HistoryRun;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The Java snippets of docs/testing.md, verbatim: the contract classes as inner classes so that they compile
 * but do not run (the build runs the contracts on the real stores and providers). Checked by
 * {@link DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class TestingSnippets {

    private TestingSnippets() {}

    static void historyCheck(DataSource a, DataSource b, DataSource c) {
        History history = HistoryRun.builder().keyPrefix("orders-check").writers(8).operationsPerWriter(5_000)
                .timeLimit(Duration.ofMinutes(2)).build()
                .run(List.of(MyStore.connect(a), MyStore.connect(b), MyStore.connect(c)));
        HistoryChecker.check(history).assertPassed();   // or history.writeTo(path) for `fencing check-history`
    }

    class MyStoreIT extends FencedStoreContract {
        @Override
        protected FencedStore createStore(Policy policy) {
            return MyStore.connect(TestServers.postgres().dataSource(), policy);
        }
    }

    class MyProviderIT extends LockProviderContract {
        @Override
        protected LockProvider createProvider(FencingListener listener) {
            return MyProvider.builder(TestServers.redis().uri()).listener(listener).build();
        }

        @Override
        protected LockProvider createUnreachableProvider() {         // built while its server answered
            RedisTestServer own = RedisTestServer.launch();
            LockProvider provider = MyProvider.builder(own.uri()).build();
            own.stop();                                                // then it stopped answering
            return provider;
        }
    }
}
