package dev.fencing.cli.backends;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.servers.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.RepeatedTest;

/** The demo's plain table, created by several CLI processes starting at once (as two workers do). */
class SqlPlainStoreIT {

    @RepeatedTest(5)
    void processesStartingAtOnceAllGetTheTable() throws Exception {
        DataSource fresh = TestServers.postgres().freshDatabase();
        int processes = 6;
        CyclicBarrier start = new CyclicBarrier(processes);
        ExecutorService pool = Executors.newFixedThreadPool(processes);
        List<Future<SqlPlainStore>> opened = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            opened.add(pool.submit(() -> {
                try {
                    start.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return SqlPlainStore.create(fresh);
            }));
        }
        try {
            for (Future<SqlPlainStore> each : opened) {
                assertThat(each.get(30, TimeUnit.SECONDS).read("absent")).isEmpty();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
