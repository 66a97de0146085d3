package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import java.time.Duration;
import javax.sql.DataSource;

/** The Java snippets of docs/zookeeper.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class ZooKeeperSnippets {

    private ZooKeeperSnippets() {}

    static void zooKeeperQuickStart(DataSource dataSource) throws InterruptedException {
        FencedStore invoices = JdbcFencedStore.create(dataSource);   // or any fenced store
        try (ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder("zk1:2181,zk2:2181,zk3:2181")
                .sessionTimeout(Duration.ofSeconds(10)).build()) {
            LeaseOptions options = LeaseOptions.builder().ttl(Duration.ofSeconds(6)).autoRenew(true).build(); // see "under a partition"
            try (Lease lease = locks.acquire("invoice-7", options)) {     // token = the holder znode's czxid
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }
        }
    }
}
