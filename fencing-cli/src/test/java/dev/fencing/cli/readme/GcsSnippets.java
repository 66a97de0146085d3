package dev.fencing.cli.readme;

import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.gcs.GcsFencedStore;
import java.time.Duration;

/** The Java snippet of docs/gcs.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class GcsSnippets {

    private GcsSnippets() {}

    static void gcsQuickStart(LockProvider locks) throws InterruptedException {
        Storage storage = StorageOptions.http().build().getService();   // credentials and project from the environment
        FencedStore store = GcsFencedStore.builder(storage, "reports").keyPrefix("totals/")   // the bucket must exist
                .requestTimeout(Duration.ofSeconds(5)).build();
        try (Lease lease = locks.acquire("reports/2026-11", LeaseOptions.ofTtl(Duration.ofSeconds(30)))) {
            store.write(lease.token(), "2026-11", "total=1234");    // the object totals/2026-11
        }
    }
}
