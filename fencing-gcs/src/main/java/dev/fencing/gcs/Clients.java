package dev.fencing.gcs;

import com.google.cloud.TransportOptions;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.HttpStorageOptions;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import java.time.Duration;

/** The caller's client, rebuilt with the store's request bound. */
final class Clients {

    private Clients() {}

    /**
     * Requires a client of the JSON API over HTTP ({@link StorageOptions#http()}, the default):
     * the store bounds its requests through the HTTP transport's timeouts.
     *
     * @throws IllegalArgumentException for a gRPC client, naming it
     */
    static Storage requireHttp(Storage storage) {
        if (!(storage.getOptions() instanceof HttpStorageOptions)
                || !(storage.getOptions().getTransportOptions() instanceof HttpTransportOptions)) {
            throw new IllegalArgumentException("storage must be a client of the JSON API over HTTP"
                    + " (StorageOptions.http(), the default), got " + storage.getOptions().getClass().getSimpleName()
                    + ": the store bounds each request through the HTTP transport");
        }
        return storage;
    }

    /**
     * A client with the caller's settings (host, project, credentials, HTTP transport) whose every
     * request — connecting, then each wait for the reply — gives up after {@code timeout}, and
     * whose retries stop within {@code timeout} in all.
     */
    static Storage bounded(Storage storage, Duration timeout) {
        return bounded(storage, timeout, storage.getOptions().getRetrySettings().getMaxAttempts());
    }

    /**
     * The same, sending each request once: the client retries a request that carries a generation
     * precondition on its own (it is idempotent to GCS), and a re-sent upload whose first copy
     * landed is answered 412. When another write came in between, the writer could not tell its own
     * landed write from a refusal; sent once, a lost reply is an error the store decides by reading
     * the object back.
     */
    static Storage once(Storage storage, Duration timeout) {
        return bounded(storage, timeout, 1);
    }

    private static Storage bounded(Storage storage, Duration timeout, int attempts) {
        StorageOptions options = storage.getOptions();
        int millis = Math.toIntExact(timeout.toMillis());
        TransportOptions transport = ((HttpTransportOptions) options.getTransportOptions()).toBuilder()
                .setConnectTimeout(millis).setReadTimeout(millis).build();
        return options.toBuilder().setTransportOptions(transport)
                .setRetrySettings(options.getRetrySettings().toBuilder().setTotalTimeoutDuration(timeout)
                        .setMaxAttempts(attempts).build())
                .build().getService();
    }
}
