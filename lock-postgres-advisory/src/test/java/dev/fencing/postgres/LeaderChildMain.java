package dev.fencing.postgres;

import dev.fencing.testkit.LeaderChild;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A leadership candidate in a process of its own, for {@link PostgresFrozenLeaderIT}: see {@link LeaderChild}.
 *
 * <p>Arguments: JDBC URL with credentials, lock, TTL in milliseconds.
 */
public final class LeaderChildMain {

    private LeaderChildMain() {}

    public static void main(String[] args) throws Exception {
        LeaderChild.run(PostgresAdvisoryLockProvider.builder(dataSource(args[0])).build(), args[1], Duration.ofMillis(Long.parseLong(args[2])));
    }

    private static PGSimpleDataSource dataSource(String url) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);
        return dataSource;
    }
}
