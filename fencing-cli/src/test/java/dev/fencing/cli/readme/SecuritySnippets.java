package dev.fencing.cli.readme;

import dev.fencing.redis.RedisLockProvider;
import io.lettuce.core.SslOptions;
import java.io.File;

/** The Java snippets of docs/security.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class SecuritySnippets {

    private SecuritySnippets() {}

    static RedisLockProvider redisOverTls() {
        SslOptions tls = SslOptions.builder()
                .trustManager(new File("/etc/fencing/redis-ca.pem"))          // the authority that signed Redis's certificate
                .keyManager(new File("/etc/fencing/client.pem"), new File("/etc/fencing/client-key.pem"), null)
                .build();
        RedisLockProvider locks = RedisLockProvider.builder("rediss://fencing-locks:" + System.getenv("REDIS_LOCK_PASSWORD")
                + "@redis.internal:6380").sslOptions(tls).build();
        return locks;
    }
}
