package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.testkit.servers.SqlTestServer;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Attack on guarantee 9's "names compare byte for byte": {@code Checks.requireName} accepts a lock
 * name with an unpaired surrogate ({@code "order-\uD83D"}, "order-😀" cut at 7 chars), which has
 * no UTF-8 bytes; the driver sends other bytes for it ({@code "order-?"} with pgjdbc). The SQL
 * condition then takes the lock those bytes spell for the lock that bound the key, while the
 * core's Java comparison in {@code update} refuses the binding lock itself as foreign.
 */
class LockNamesWithoutUtf8IT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aLockNameWithAnUnpairedSurrogateIsStoredAsAnotherLocksName(SqlTestServer server) {
        DataSource db = Databases.migrated(server);
        FencedStore first = JdbcFencedStore.create(db);
        FencedStore second = JdbcFencedStore.create(db);
        String key = "k-" + UUID.randomUUID();
        String cut = "order-\uD83D\uDE00".substring(0, 7); // "order-\uD83D"

        first.write(FencingToken.of(cut, 5), key, "1");
        Throwable ownUpdate = catchThrowable(() -> first.update(FencingToken.of(cut, 6), key, v -> v.orElse("0") + "+1"));
        // the lock the store says the key is bound to: "order-?" on PostgreSQL; on MariaDB whatever the driver's bytes decode to
        String reported = ownUpdate instanceof ForeignTokenException foreign ? foreign.boundResource() : "order-?";
        Throwable otherLock = catchThrowable(() -> second.write(FencingToken.of(reported, 7), key, "another lock"));

        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(escaped(ownUpdate)).as("an update by the lock that bound the key").isNull();
        softly.assertThat(escaped(otherLock)).as("a token of lock '" + reported + "' on a key bound to lock 'order-\\uD83D'")
                .startsWith(ForeignTokenException.class.getSimpleName());
        softly.assertAll();
    }

    /** The outcome as ASCII: a lone surrogate in a message cuts the test report short. */
    private static String escaped(Throwable outcome) {
        if (outcome == null) {
            return null;
        }
        StringBuilder text = new StringBuilder(outcome.getClass().getSimpleName()).append(": ");
        outcome.getMessage().chars()
                .forEach(c -> text.append(c < 128 ? String.valueOf((char) c) : String.format("\\u%04X", c)));
        return text.toString();
    }
}
