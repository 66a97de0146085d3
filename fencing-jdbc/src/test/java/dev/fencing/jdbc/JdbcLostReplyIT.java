package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A lost reply is an error, never a second application: JdbcFencedStore.update whose UPDATE reply
 * is lost after PostgreSQL committed it. The driver does not re-send, the toolkit reruns only
 * serialization failures, so the caller gets the I/O error and the increment is applied once.
 * (A regression test: the adversarial review's attack held.)
 */
class JdbcLostReplyIT {

    @Test
    void aLostReplyToAnUpdateIsAnErrorAndTheIncrementIsAppliedOnce() {
        PostgresTestServer postgres = TestServers.postgres();
        FencingMigrations.migrate(postgres.dataSource());
        URI url = URI.create(postgres.jdbcUrl().substring("jdbc:".length()));
        try (ReplyDroppingProxy proxy = ReplyDroppingProxy.start(url.getHost(), url.getPort())) {
            PGSimpleDataSource viaProxy = new PGSimpleDataSource();
            viaProxy.setUrl(postgres.jdbcUrl().replace(url.getHost() + ":" + url.getPort(), "127.0.0.1:" + proxy.port()));
            FencedStore holder = JdbcFencedStore.create(viaProxy, JdbcFencedStore.DEFAULT_TABLE, Policy.MONOTONIC,
                    FencingListener.NONE);
            FencedStore observer = JdbcFencedStore.create(postgres.dataSource());
            String key = "counter-" + UUID.randomUUID();
            FencingToken token = FencingToken.of(key, 5);
            holder.write(token, key, "0");
            AtomicBoolean first = new AtomicBoolean(true);
            Throwable failure = null;
            try {
                holder.update(token, key, value -> {
                    if (first.getAndSet(false)) {
                        proxy.dropReplyTo("UPDATE fencing_store SET", () -> { }); // the UPDATE, not a handshake
                    }
                    return Integer.toString(Integer.parseInt(value.orElse("0")) + 1);
                });
            } catch (RuntimeException e) {
                failure = e;
            }
            System.out.println("holder's update ended with: " + failure);
            assertThat(proxy.dropped()).isEqualTo(1);
            assertThat(observer.read(key)).map(StoredValue::value).isEqualTo(Optional.of("1"));
        }
    }
}
