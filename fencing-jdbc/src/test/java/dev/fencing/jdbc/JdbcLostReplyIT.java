package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.ReplyDroppingProxy;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lost-reply cases themselves are the contract's ({@link JdbcFencedStoreIT}); this one checks
 * what the caller gets to see: the unknown outcome's cause is the driver's own I/O error, not
 * "This connection has been closed" (08003) from asking the dead connection for its metadata, as
 * {@link JdbcFencedStore} reported on PostgreSQL before.
 */
class JdbcLostReplyIT {

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void theUnknownOutcomeCarriesTheDriversIoError(String vendor) {
        DataSource database = Databases.migrated(vendor.equals("postgresql") ? Databases.postgres() : Databases.mariaDb());
        try (ReplyDroppingProxy proxy = Databases.proxyTo(database)) {
            FencedStore holder = JdbcFencedStore.builder(Databases.through(proxy, database)).build();
            FencedStore observer = JdbcFencedStore.create(database);
            String key = "lost-" + UUID.randomUUID();
            FencingToken token = FencingToken.of(key, 5);
            holder.write(token, key, "0");

            proxy.dropReplyTo("UPDATE " + JdbcFencedStore.DEFAULT_TABLE + " SET", () -> { });
            assertThatThrownBy(() -> holder.write(token, key, "1"))
                    .isInstanceOfSatisfying(WriteOutcomeUnknownException.class, e -> assertThat(e.key()).isEqualTo(key))
                    .cause().isInstanceOfSatisfying(SQLException.class, cause -> {
                        assertThat(cause.getSQLState()).as("a connection error").startsWith("08")
                                .as("not the dead connection's 'closed'").isNotEqualTo("08003");
                        assertThat(cause.getSuppressed()).as("nothing asked of the dead connection").isEmpty();
                    });

            assertThat(proxy.dropped()).isEqualTo(1);
            assertThat(observer.read(key)).as("the write landed once").contains(new StoredValue(key, "1", 5));
        }
    }
}
