package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A server that falls silent after {@code build()}, reached through a plain {@link PGSimpleDataSource}
 * (no pool: it opens each connection on the caller's thread). Written by an adversary against the
 * caller's-thread borrow: pgJDBC's connect ignores the alarm's interrupt, so with the driver's
 * defaults a tryAcquire with a 1 s wait took ~5 s. The documented bound for such a DataSource is
 * the driver's own {@code loginTimeout}: set to 1 s here, the calls come back within the wait, the
 * login timeout and a slack.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PostgresFallsSilentPlainDataSourceIT {

    private static final Duration SLACK = Duration.ofMillis(1500);

    @Test
    void tryAcquireAndInspectGiveUpWithinTheirBoundWhenTheServerFallsSilent() throws Exception {
        PGSimpleDataSource database = (PGSimpleDataSource) TestServers.postgres().freshDatabase();
        FencingMigrations.migrate(database);
        try (LaggingProxy proxy = ProxiedPostgres.proxyTo(database)) {
            PGSimpleDataSource plain = ProxiedPostgres.through(proxy, database);
            plain.setLoginTimeout(1); // the documented bound of a DataSource without a pool
            try (PostgresAdvisoryLockProvider provider = PostgresAdvisoryLockProvider.builder(plain)
                    .connectTimeout(Duration.ofSeconds(2)).build()) {
                provider.tryAcquire("falls-silent", LeaseOptions.ofTtl(Duration.ofSeconds(5))).orElseThrow().release();

                proxy.holdReplies(); // the server falls silent: connections open, nothing answers
                Duration wait = Duration.ofSeconds(1);
                String acquire = timed(() -> {
                    try {
                        return String.valueOf(provider.tryAcquire("falls-silent",
                                LeaseOptions.ofTtl(Duration.ofSeconds(5)).withWaitTimeout(wait)).map(Lease::token));
                    } catch (RuntimeException e) {
                        return e.toString();
                    }
                }, Duration.ofSeconds(15));
                String inspect = timed(() -> {
                    try {
                        return String.valueOf(provider.inspect("falls-silent"));
                    } catch (RuntimeException e) {
                        return e.toString();
                    }
                }, Duration.ofSeconds(15));
                System.out.println("falls silent midway: tryAcquire(wait 1 s) -> " + acquire + "; inspect -> " + inspect);
                proxy.passReplies();
                assertThat(acquire).as("tryAcquire with wait timeout %s against a silent server", wait)
                        .doesNotStartWith("STILL BLOCKED");
                assertThat(inspect).as("inspect() against a silent server").doesNotStartWith("STILL BLOCKED");
                assertThat(millis(acquire)).as("ms a tryAcquire with wait timeout %s took against a silent server: %s",
                        wait, acquire).isLessThanOrEqualTo(wait.plus(Duration.ofSeconds(1)).plus(SLACK).toMillis());
                assertThat(millis(inspect)).as("ms inspect took against a silent server: %s", inspect)
                        .isLessThanOrEqualTo(PostgresAdvisoryLockProvider.INSPECT_WAIT.plus(Duration.ofSeconds(1))
                                .plus(SLACK).toMillis());
            }
        }
    }

    private static long millis(String outcome) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("after (\\d+) ms$").matcher(outcome);
        return m.find() ? Long.parseLong(m.group(1)) : Long.MAX_VALUE;
    }

    private static String timed(java.util.function.Supplier<String> call, Duration patience) throws Exception {
        long start = System.nanoTime();
        CompletableFuture<String> running = CompletableFuture.supplyAsync(call, runnable -> {
            Thread thread = new Thread(runnable, "falls-silent-call");
            thread.setDaemon(true);
            thread.start();
        });
        try {
            String outcome = running.get(patience.toMillis(), TimeUnit.MILLISECONDS);
            return outcome + " after " + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms";
        } catch (TimeoutException e) {
            return "STILL BLOCKED after " + patience.toMillis() + " ms";
        }
    }
}
