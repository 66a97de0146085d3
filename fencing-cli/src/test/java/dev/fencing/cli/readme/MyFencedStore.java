package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.spi.StoreBuilder;

/**
 * docs/architecture.md's skeleton of a new store's public entry: compiled by the build (never run),
 * found in the docs by {@link DocsSnippetsTest}.
 */
public final class MyFencedStore {

    private MyFencedStore() {}

    public static FencedStore create(String endpoint) {
        return builder(endpoint).build();
    }

    public static Builder builder(String endpoint) {
        if (endpoint == null || endpoint.isBlank()) {
            throw new IllegalArgumentException("endpoint must be a host:port, got '" + endpoint + "'");
        }
        return new Builder(endpoint);
    }

    public static final class Builder extends StoreBuilder<Builder> {
        private final String endpoint;

        private Builder(String endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        public FencedStore build() {
            return storeOver(new MyStoreAccessor(endpoint));
        }
    }
}
