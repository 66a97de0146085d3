package dev.fencing.cli.commands;

import dev.fencing.cli.backends.FencedServiceClient;
import dev.fencing.cli.backends.PlainStore;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.StoredValue;
import dev.fencing.propagation.FencingContext;
import java.util.Optional;

/** Where the demo's clients keep the account: the store itself, or a service over HTTP in front of it. */
interface Accounts {

    /** Writes {@code value} as the holder of {@code lease}. */
    void write(Lease lease, String key, String value);

    /** The value and its token. */
    Optional<StoredValue> read(String key);

    /** Who refused a stale write, for the timeline: "" for the store itself. */
    String refusedBy();

    /** The same account without the token check. */
    PlainStore plain();

    /** Straight to the store's client. */
    static Accounts direct(FencedStore store, PlainStore plain) {
        return new Accounts() {
            @Override
            public void write(Lease lease, String key, String value) {
                store.write(lease.token(), key, value);
            }

            @Override
            public Optional<StoredValue> read(String key) {
                return store.read(key);
            }

            @Override
            public String refusedBy() {
                return "";
            }

            @Override
            public PlainStore plain() {
                return plain;
            }
        };
    }

    /** Through the accounts service: the lease is bound for the call, its client sends the token. */
    static Accounts overHttp(FencedServiceClient service) {
        return new Accounts() {
            @Override
            @SuppressWarnings("try") // the scope is read by the HTTP client, not the block
            public void write(Lease lease, String key, String value) {
                try (FencingContext.Scope scope = FencingContext.bind(lease)) {
                    service.put("/fenced", key, value);
                }
            }

            @Override
            public Optional<StoredValue> read(String key) {
                return service.get("/fenced", key);
            }

            @Override
            public String refusedBy() {
                return " by the accounts service (HTTP 409, Fencing-Refusal)";
            }

            @Override
            public PlainStore plain() {
                return new PlainStore() {
                    @Override
                    public Optional<String> read(String key) {
                        return service.get("/plain", key).map(StoredValue::value);
                    }

                    @Override
                    public void write(String key, String value) {
                        service.put("/plain", key, value);
                    }
                };
            }
        };
    }
}
