package dev.fencing.redis;

import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.ProviderBuilder;
import io.lettuce.core.SslOptions;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The settings the Redis providers share: key prefix and token counters.
 *
 * @param <B> the concrete builder
 */
public abstract class RedisProviderBuilder<B extends RedisProviderBuilder<B>> extends ProviderBuilder<B> {

    String keyPrefix = "fencing:";
    boolean tokenSeeding = true;
    Duration tokenIdleExpiry = Duration.ofDays(30);
    double driftFactor = 0.01;
    Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    @Nullable SslOptions sslOptions;

    /** The default {@link #connectTimeout}: 10 s. */
    static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    RedisProviderBuilder() {}

    /** The prefix of every key and channel; default {@code fencing:}. Letters, digits and {@code :_-.} only. */
    public B keyPrefix(String keyPrefix) {
        if (keyPrefix == null || !keyPrefix.matches("[A-Za-z0-9:_.\\-]{0,64}")) {
            throw new IllegalArgumentException("keyPrefix must be up to 64 letters, digits or ':_-.', got '"
                    + keyPrefix + "'");
        }
        this.keyPrefix = keyPrefix;
        return self();
    }

    /**
     * Whether every grant's token is {@code max(counter + 1, server TIME in µs)} (default: tokens
     * keep increasing when the counter comes back old or missing, under the clock assumption in
     * {@link RedisLockProvider}'s Javadoc) or plain {@code counter + 1} ({@code false}: tokens start
     * at 1 and repeat after any lost write — only where Redis never loses one, {@code appendfsync
     * always} and no failover to asynchronous replicas). Off requires {@code tokenIdleExpiry(ZERO)}.
     */
    public B tokenSeeding(boolean tokenSeeding) {
        this.tokenSeeding = tokenSeeding;
        return self();
    }

    /**
     * How long a resource's token counter survives without a grant or renewal, so counters of
     * resources no longer used do not pile up; default 30 days, {@link Duration#ZERO} for never.
     * At least 8 days (longer than the longest lease); needs seeding, which keeps tokens
     * increasing after the counter expired.
     */
    public B tokenIdleExpiry(Duration tokenIdleExpiry) {
        Checks.requireNonNull("tokenIdleExpiry", tokenIdleExpiry);
        if (!tokenIdleExpiry.isZero() && tokenIdleExpiry.compareTo(Duration.ofDays(8)) < 0) {
            throw new IllegalArgumentException("tokenIdleExpiry must be zero (never) or at least 8 days, got "
                    + tokenIdleExpiry);
        }
        this.tokenIdleExpiry = tokenIdleExpiry;
        return self();
    }

    /**
     * The clock-drift allowance as a fraction of the TTL, 0 to 0.5; default 0.01. A lease counts
     * itself valid for {@code ttl - (ttl * driftFactor + 2 ms)} from before its request (and from
     * before each renewal), so that it ends before the server expires the key even if the server's
     * clock runs up to {@code driftFactor} faster than this process's. A TTL that leaves no
     * validity after the margin is refused with {@link IllegalArgumentException}.
     */
    public B driftFactor(double driftFactor) {
        if (!(driftFactor >= 0 && driftFactor <= 0.5)) {
            throw new IllegalArgumentException("driftFactor must be between 0 and 0.5, got " + driftFactor);
        }
        this.driftFactor = driftFactor;
        return self();
    }

    /**
     * How long {@code build()} waits for a server to accept the connection and answer its first
     * requests (Lettuce's handshake, then {@code INFO server}); default 10 s, 100 ms to 5 min. A
     * server that accepts TCP but never answers — a hung process, a black-holing middlebox — makes
     * {@code build()} throw {@link dev.fencing.core.LockUnavailableException} within this bound
     * (plus scheduling), naming the server and the bound. Applies to clients the provider creates;
     * a client passed in keeps its own {@code RedisURI} timeout for the handshake.
     */
    public B connectTimeout(Duration connectTimeout) {
        this.connectTimeout = Checks.requireBetween("connectTimeout", connectTimeout, Duration.ofMillis(100),
                Duration.ofMinutes(5));
        return self();
    }

    /**
     * The TLS settings of the connections the provider opens to {@code rediss://} URIs: the
     * certificates to trust (default: the JVM's trust store), a client certificate for servers
     * with {@code tls-auth-clients yes}, protocols and ciphers. Lettuce verifies the server's
     * certificate and host name; a server that does not present a certificate its trust accepts
     * fails the connection ({@code build()} throws {@link dev.fencing.core.LockUnavailableException}
     * naming the TLS failure), and a {@code rediss://} URI never falls back to plaintext. Applies to
     * clients the provider creates: a client passed in keeps its own {@code ClientOptions}, and
     * {@code build()} refuses this setting for it.
     */
    public B sslOptions(SslOptions sslOptions) {
        this.sslOptions = Checks.requireNonNull("sslOptions", sslOptions);
        return self();
    }

    /** Refuses contradicting token settings; call first in {@code build()}. */
    void checkTokenSettings() {
        if (!tokenSeeding && !tokenIdleExpiry.isZero()) {
            throw new IllegalArgumentException("tokenIdleExpiry needs tokenSeeding: without seeding an expired"
                    + " counter would restart at 1 and tokens would go backwards; set tokenIdleExpiry(Duration.ZERO)");
        }
    }

    /** The key layout these settings give. */
    RedisKeys keys() {
        return new RedisKeys(keyPrefix);
    }
}
