package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.micrometer.MicrometerFencingListener;
import dev.fencing.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;

/** The Java snippet of docs/metrics.md, verbatim: compiled by the build, found in the docs by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class MetricsSnippets {

    private MetricsSnippets() {}

    static void metrics(MeterRegistry meterRegistry, RedisClient redisClient, DataSource dataSource) {
        MicrometerFencingListener metrics = MicrometerFencingListener.builder(meterRegistry)
                .provider("redis").store("jdbc").build();
        RedisLockProvider locks = RedisLockProvider.builder(redisClient).listener(metrics).build();
        FencedStore accounts = JdbcFencedStore.builder(dataSource).listener(metrics).build();
    }
}
