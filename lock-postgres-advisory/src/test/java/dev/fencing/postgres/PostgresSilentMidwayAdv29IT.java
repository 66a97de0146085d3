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
 * Adversarial (adv29): a server that falls silent after {@code build()}, reached through a plain
 * {@link PGSimpleDataSource} (a DataSource the README and SilentPostgresIT name as supported). The
 * README says a running provider's calls keep "the Postgres wait timeout", and {@code inspect()} is
 * bounded by INSPECT_WAIT. But BoundedBorrow borrows on the caller's thread and only interrupts it:
 * pgjdbc's connect ignores the interrupt, and PGSimpleDataSource's defaults (loginTimeout 0,
 * socketTimeout 0) give no bound of their own, so the call never comes back.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PostgresSilentMidwayAdv29IT {

    private static final Duration SLACK = Duration.ofMillis(1500);

    @Test
    void tryAcquireAndInspectGiveUpWithinTheirBoundWhenTheServerFallsSilent() throws Exception {
        PGSimpleDataSource database = (PGSimpleDataSource) TestServers.postgres().freshDatabase();
        FencingMigrations.migrate(database);
        try (LaggingProxy proxy = ProxiedPostgres.proxyTo(database)) {
            PGSimpleDataSource plain = ProxiedPostgres.through(proxy, database);
            try (PostgresAdvisoryLockProvider provider = PostgresAdvisoryLockProvider.builder(plain)
                    .connectTimeout(Duration.ofSeconds(2)).build()) {
                provider.tryAcquire("adv29-silent", LeaseOptions.ofTtl(Duration.ofSeconds(5))).orElseThrow().release();

                proxy.holdReplies(); // the server falls silent: connections open, nothing answers
                Duration wait = Duration.ofSeconds(1);
                String acquire = timed(() -> {
                    try {
                        return String.valueOf(provider.tryAcquire("adv29-silent",
                                LeaseOptions.ofTtl(Duration.ofSeconds(5)).withWaitTimeout(wait)).map(Lease::token));
                    } catch (RuntimeException e) {
                        return e.toString();
                    }
                }, Duration.ofSeconds(15));
                String inspect = timed(() -> {
                    try {
                        return String.valueOf(provider.inspect("adv29-silent"));
                    } catch (RuntimeException e) {
                        return e.toString();
                    }
                }, Duration.ofSeconds(15));
                System.out.println("adv29 silent-midway: tryAcquire(wait 1 s) -> " + acquire + "; inspect -> " + inspect);
                proxy.passReplies();
                assertThat(acquire).as("tryAcquire with wait timeout %s against a silent server", wait)
                        .doesNotStartWith("STILL BLOCKED");
                assertThat(inspect).as("inspect() against a silent server").doesNotStartWith("STILL BLOCKED");
                assertThat(millis(acquire)).as("ms a tryAcquire with wait timeout %s took against a silent server: %s",
                        wait, acquire).isLessThanOrEqualTo(wait.plus(SLACK).toMillis());
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
            Thread thread = new Thread(runnable, "adv29-call");
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
