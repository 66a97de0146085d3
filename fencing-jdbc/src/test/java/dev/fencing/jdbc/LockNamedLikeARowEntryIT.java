package dev.fencing.jdbc;

import static dev.fencing.jdbc.RowKeysIT.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A lock whose name is exactly a row's fence entry ({@code <schema>.accounts:<id>}, the natural
 * name of a "one lock per row" scheme) on the row it names: the lock's fence row and the row's entry
 * are two marks, and neither stands in for the other. Every row guard operation against every fence
 * row path, both ways round, on both databases; the newer holder and the zombie are separate
 * instances on separate data sources, as two services would be. (Before the lock fence rows and the
 * row entries had a namespace each, {@code update} and {@code execute} skipped the lock's fence row
 * for such a name, and token 7 got through after token 10 in both directions.)
 */
class LockNamedLikeARowEntryIT {

    /** A row guard write of row {@code id} with {@code token}. */
    enum RowGuardWrite {
        UPDATE {
            @Override
            void run(RowGuard table, Connection connection, FencingToken token, long id, long balance) throws SQLException {
                table.update(connection, token, Map.of("id", id), Map.of("balance", balance));
            }
        },
        EXECUTE {
            @Override
            void run(RowGuard table, Connection connection, FencingToken token, long id, long balance) throws SQLException {
                table.execute(connection, token, Map.of("id", id), "UPDATE accounts SET balance = ?", balance);
            }
        },
        UPSERT {
            @Override
            void run(RowGuard table, Connection connection, FencingToken token, long id, long balance) throws SQLException {
                table.upsert(connection, token, Map.of("id", id), Map.of("balance", balance));
            }
        },
        INSERT {
            @Override
            boolean needsAbsentRow() {
                return true;
            }

            @Override
            void run(RowGuard table, Connection connection, FencingToken token, long id, long balance) throws SQLException {
                table.insert(connection, token, Map.of("id", id), Map.of("balance", balance));
            }
        },
        DELETE {
            @Override
            void run(RowGuard table, Connection connection, FencingToken token, long id, long balance) throws SQLException {
                table.delete(connection, token, Map.of("id", id));
            }
        };

        abstract void run(RowGuard table, Connection connection, FencingToken token, long id, long balance)
                throws SQLException;

        /** Whether the newer holder's write needs the row absent (else the row exists with token 5). */
        boolean needsAbsentRow() {
            return false;
        }
    }

    /** A write of plain DAO code (no token) behind the fence row of {@code token}'s lock. */
    enum FenceRowWrite {
        JDBC_IN_TRANSACTION {
            @Override
            void run(DataSource db, FencingToken token, long id, long balance) throws SQLException {
                JdbcFence.create(db).inTransaction(token, connection -> setBalance(connection, id, balance));
            }
        },
        JDBC_ADVANCE {
            @Override
            void run(DataSource db, FencingToken token, long id, long balance) throws SQLException {
                try (Connection connection = db.getConnection()) {
                    connection.setAutoCommit(false);
                    try {
                        JdbcFence.create(db).advance(connection, token);
                        setBalance(connection, id, balance);
                        connection.commit();
                    } finally {
                        connection.rollback();
                        connection.setAutoCommit(true);
                    }
                }
            }
        },
        JDBI_IN_TRANSACTION {
            @Override
            void run(DataSource db, FencingToken token, long id, long balance) throws SQLException {
                JdbiFence.create(Jdbi.create(db)).inTransaction(token,
                        handle -> setBalance(handle.getConnection(), id, balance));
            }
        };

        abstract void run(DataSource db, FencingToken token, long id, long balance) throws SQLException;
    }

    static Stream<Arguments> paths() {
        List<Arguments> paths = new ArrayList<>();
        for (SqlTestServer server : List.of(Databases.postgres(), Databases.mariaDb())) {
            for (RowGuardWrite rowGuard : RowGuardWrite.values()) {
                for (FenceRowWrite fenceRow : FenceRowWrite.values()) {
                    paths.add(Arguments.of(server, rowGuard, fenceRow));
                }
            }
        }
        return paths.stream();
    }

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    /** Newer via the fence row, zombie via the row guard: the lock's mark refuses the zombie. */
    @ParameterizedTest(name = "{0}: fence row {2}, then row guard {1}")
    @MethodSource("paths")
    void aZombieThroughTheRowGuardIsRefusedAfterTheFenceRowOfALockNamedLikeTheRow(SqlTestServer server,
            RowGuardWrite zombieWrite, FenceRowWrite newerWrite) throws SQLException {
        DataSource newerDb = clientOf(server);
        DataSource zombieDb = clientOf(server);
        long id = newId();
        String lock = entryOf(zombieDb, server, id);
        RowGuard zombieTable = RowGuard.create("accounts", "id");
        try (Connection setup = zombieDb.getConnection()) {
            zombieTable.upsert(setup, FencingToken.of(lock, 5), Map.of("id", id), Map.of("balance", 50));
        }

        newerWrite.run(newerDb, FencingToken.of(lock, 10), id, 100);
        String afterNewer = row(newerDb, id);

        try (Connection zombie = zombieDb.getConnection()) {
            assertThatThrownBy(() -> zombieWrite.run(zombieTable, zombie, FencingToken.of(lock, 7), id, 70))
                    .as("token 7 of lock '%s' after token 10 of the same lock", lock)
                    .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(10));
        }
        assertThat(row(newerDb, id)).as("the newer holder's write, untouched").isEqualTo(afterNewer).isEqualTo("100@5");
    }

    /** Newer via the row guard, zombie via the fence row: the row guard raised the lock's mark. */
    @ParameterizedTest(name = "{0}: row guard {1}, then fence row {2}")
    @MethodSource("paths")
    void aZombieThroughTheFenceRowIsRefusedAfterARowGuardWriteUnderALockNamedLikeTheRow(SqlTestServer server,
            RowGuardWrite newerWrite, FenceRowWrite zombieWrite) throws SQLException {
        DataSource newerDb = clientOf(server);
        DataSource zombieDb = clientOf(server);
        long id = newId();
        String lock = entryOf(newerDb, server, id);
        RowGuard newerTable = RowGuard.create("accounts", "id");
        if (!newerWrite.needsAbsentRow()) {
            try (Connection setup = newerDb.getConnection()) {
                newerTable.upsert(setup, FencingToken.of(lock, 5), Map.of("id", id), Map.of("balance", 50));
            }
        }
        // the zombie (token 7) has passed its lock's fence once already, as a holder would
        zombieWrite.run(zombieDb, FencingToken.of(lock, 7), id, 60);

        try (Connection newer = newerDb.getConnection()) {
            newerWrite.run(newerTable, newer, FencingToken.of(lock, 10), id, 100);
        }
        String afterNewer = row(newerDb, id);

        assertThatThrownBy(() -> zombieWrite.run(zombieDb, FencingToken.of(lock, 7), id, 70))
                .as("token 7 of lock '%s' after token 10 of the same lock", lock)
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(10));
        assertThat(row(newerDb, id)).as("the newer holder's write, untouched").isEqualTo(afterNewer);
    }

    /**
     * The lock's mark is not the row's: a lock named like a row's entry that wrote token 10 through
     * the fence row leaves the row's own mark alone, so a writer of that row under another lock is
     * neither refused nor told the row's mark is 10; and a strict table accepts such a lock's first
     * token (the lock's fence row and the row's entry no longer being one row advanced twice).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theLockMarkAndTheRowMarkAreTwoMarks(SqlTestServer server) throws SQLException {
        DataSource db = clientOf(server);
        long id = newId();
        String lock = entryOf(db, server, id);
        RowGuard accounts = RowGuard.create("accounts", "id");
        try (Connection connection = db.getConnection()) {
            accounts.upsert(connection, FencingToken.of("other-lock-" + id, 3), Map.of("id", id), Map.of("balance", 30));
        }
        JdbcFence.create(db).inTransaction(FencingToken.of(lock, 10), connection -> 0);
        try (Connection connection = db.getConnection()) {
            assertThat(accounts.highWaterMark(connection, Map.of("id", id))).as("the row's own mark").hasValue(3);
            accounts.delete(connection, FencingToken.of("other-lock-" + id, 4), Map.of("id", id));
            accounts.upsert(connection, FencingToken.of("other-lock-" + id, 4), Map.of("id", id), Map.of("balance", 40));
            assertThat(row(db, id)).isEqualTo("40@4");

            long strictId = newId();
            String strictLock = entryOf(db, server, strictId);
            RowGuard strict = RowGuard.builder("accounts", "id").policy(Policy.STRICT).build();
            strict.upsert(connection, FencingToken.of(strictLock, 10), Map.of("id", strictId), Map.of("balance", 1));
            assertThat(row(db, strictId)).isEqualTo("1@10");
            assertThatThrownBy(() -> strict.update(connection, FencingToken.of(strictLock, 10), Map.of("id", strictId),
                    Map.of("balance", 2))).isInstanceOf(StaleTokenException.class);
            strict.update(connection, FencingToken.of(strictLock, 11), Map.of("id", strictId), Map.of("balance", 3));
            assertThat(row(db, strictId)).isEqualTo("3@11");
        }
    }

    /**
     * A fence table from before the namespaces (no {@code kind} column), or one whose MySQL/MariaDB
     * conversion was cut short (kind still has its default, rows of kind {@code ''} not yet
     * classified), is refused on first use by
     * the fence row and the row guard, naming the migration, and nothing is written.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aFenceTableWithoutTheNamespacesIsRefusedBeforeAnyWrite(SqlTestServer server) throws SQLException {
        DataSource db = clientOf(server);
        boolean postgres = server.vendor().equals("postgresql");
        String suffix = Long.toHexString(newId());
        String before = "fence_before_" + suffix;
        String cutShort = "fence_cut_short_" + suffix;
        String key = postgres ? "VARCHAR(256) COLLATE \"C\"" : "VARBINARY(1024)";
        String schema;
        long id = newId();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            schema = postgres ? "public" : connection.getCatalog();
            statement.execute("CREATE TABLE " + before + " (resource " + key + " NOT NULL PRIMARY KEY, token BIGINT NOT NULL,"
                    + " updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))");
            statement.execute("CREATE TABLE " + cutShort + " (kind VARCHAR(4) NOT NULL DEFAULT '', resource " + key + " NOT NULL,"
                    + " token BIGINT NOT NULL, updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
                    + " PRIMARY KEY (kind, resource))");
            statement.execute("INSERT INTO " + cutShort + " (kind, resource, token) VALUES ('', 'account-1', 3)");
        }
        String lock = entryOf(db, server, id);
        for (String table : List.of(before, cutShort)) {
            String expected = table.equals(before) ? "has no column 'kind'" : "the migration was cut short";
            assertThatThrownBy(() -> JdbcFence.builder(db).table(table).build().inTransaction(FencingToken.of(lock, 9),
                    connection -> setBalance(connection, id, 9)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining(expected)
                    .hasMessageContaining("FencingMigrations.migrate(dataSource)");
            RowGuard accounts = RowGuard.builder("accounts", "id").fenceTable(schema + "." + table).build();
            try (Connection connection = db.getConnection()) {
                assertThatThrownBy(() -> accounts.upsert(connection, FencingToken.of(lock, 9), Map.of("id", id),
                        Map.of("balance", 9)))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining(expected)
                        .hasMessageContaining("FencingMigrations.migrate(dataSource)");
                assertThat(count(connection, "SELECT COUNT(*) FROM " + table)).as("nothing written to " + table)
                        .isEqualTo(table.equals(before) ? 0 : 1);
            }
        }
        assertThat(row(db, id)).isEqualTo("absent");
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE " + before);
            statement.execute("DROP TABLE " + cutShort);
        }
    }

    /** A data source of its own over the test database: another client instance, as another service would have. */
    private static DataSource clientOf(SqlTestServer server) {
        int isolation = server.vendor().equals("postgresql") ? Connection.TRANSACTION_READ_COMMITTED
                : Connection.TRANSACTION_REPEATABLE_READ; // each database's default
        return Databases.migrated(server, isolation);
    }

    /** The name the row guard gives the fence entry of {@code accounts} row {@code id}. */
    private static String entryOf(DataSource db, SqlTestServer server, long id) throws SQLException {
        try (Connection connection = db.getConnection()) {
            String schema = server.vendor().equals("postgresql") ? "public" : connection.getCatalog();
            return schema + ".accounts:" + id;
        }
    }

    private static long newId() {
        return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    }

    private static int setBalance(Connection connection, long id, long balance) throws SQLException {
        try (PreparedStatement dao = connection.prepareStatement("UPDATE accounts SET balance = ? WHERE id = ?")) {
            dao.setLong(1, balance);
            dao.setLong(2, id);
            return dao.executeUpdate();
        }
    }

    /** {@code balance@token}, or {@code absent}. */
    private static String row(DataSource db, long id) throws SQLException {
        try (Connection connection = db.getConnection()) {
            if (count(connection, "SELECT COUNT(*) FROM accounts WHERE id = " + id) == 0) {
                return "absent";
            }
            return count(connection, "SELECT balance FROM accounts WHERE id = " + id) + "@"
                    + count(connection, "SELECT fencing_token FROM accounts WHERE id = " + id);
        }
    }
}
