package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.jdbc.JdbcFencedStore;
import java.time.Duration;
import javax.sql.DataSource;

/** The Java snippets of docs/etcd.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class EtcdSnippets {

    private EtcdSnippets() {}

    static void etcdQuickStart(DataSource dataSource) throws InterruptedException {
        FencedStore invoices = JdbcFencedStore.create(dataSource);   // or any fenced store
        try (EtcdLockProvider locks = EtcdLockProvider.create("http://etcd-1:2379", "http://etcd-2:2379", "http://etcd-3:2379")) {
            try (Lease lease = locks.acquire("invoice-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }                                          // release: owner-checked delete, then the lease is revoked
        }
    }
}
