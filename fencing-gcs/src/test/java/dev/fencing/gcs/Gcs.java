package dev.fencing.gcs;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.fencing.testkit.Skip;
import dev.fencing.testkit.servers.GcsTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.util.Optional;
import java.util.UUID;

/**
 * Clients of the testkit's GCS testbench (or the server {@code FENCING_GCS_ENDPOINT} names), each a
 * separate {@link Storage} with an HTTP transport of its own, as a separate process has. Without a
 * server the calling test is skipped with the reason printed — except under {@code CI=true}, where
 * a skipped GCS test would hide that the build never ran them: there it fails with the reason.
 */
final class Gcs {

    private Gcs() {}

    /** The shared server, or the calling test skipped (failed under {@code CI=true}) with the reason. */
    static GcsTestServer server() {
        Optional<String> why = TestServers.gcsUnavailable();
        if (why.isPresent()) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new IllegalStateException("CI=true, and the GCS tests would be skipped: " + why.get());
            }
            Skip.because(why.get());
        }
        return TestServers.gcs();
    }

    /** A client of the shared server. */
    static Storage client() {
        return client(server().endpoint());
    }

    /** A client of the JSON API at {@code host} ({@code http://host:port}), no credentials. */
    static Storage client(String host) {
        return StorageOptions.http().setHost(host).setProjectId(GcsTestServer.PROJECT)
                .setCredentials(NoCredentials.getInstance()).build().getService();
    }

    /** A new, empty bucket on the shared server. */
    static String newBucket() {
        String name = "fencing-" + UUID.randomUUID().toString().substring(0, 8);
        server().createBucket(name);
        return name;
    }
}
