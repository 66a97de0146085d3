package dev.fencing.postgres;

import java.util.regex.Pattern;

/** The SQL of the provider and the transaction locks, in one place. */
final class CounterSql {

    private static final Pattern TABLE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,62}");

    private CounterSql() {}

    static String requireTable(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("counter table must be an unquoted SQL name, optionally schema-qualified,"
                    + " got '" + table + "'");
        }
        return table;
    }

    /**
     * The server's clock in microseconds since the epoch ({@code clock_timestamp()}, which moves
     * within a transaction; {@code extract} answers an exact numeric on PostgreSQL 14+).
     */
    static final String CLOCK_MICROS = "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint";

    /**
     * Each grant's token is {@code max(counter + 1, clock in µs)}: strictly above the counter
     * while the counter survives, and above every earlier token even when the counter comes back
     * lower — a transaction rolled back to a savepoint taken before the lock, a database restored
     * from an older backup, a lost commit — provided the server's clock did not go back by more
     * than the time that passed, and fewer than one grant per µs per resource was sustained.
     */
    static final String ADVANCE = " ON CONFLICT (resource) DO UPDATE SET token = GREATEST(c.token + 1, " + CLOCK_MICROS
            + "), updated_at = CURRENT_TIMESTAMP";

    /**
     * Makes the commit of the statement's transaction durable whatever the server, role or
     * session default: {@code off} and {@code local} become {@code on} for this transaction only
     * ({@code set_config(..., true)}); {@code on}, {@code remote_write} and {@code remote_apply}
     * are kept. Without it, under {@code synchronous_commit = off} a crash loses the last
     * counter increments and tokens are handed out again.
     */
    static final String DURABLE_COMMIT = "set_config('synchronous_commit', CASE current_setting('synchronous_commit')"
            + " WHEN 'off' THEN 'on' WHEN 'local' THEN 'on' ELSE current_setting('synchronous_commit') END, true)";

    /**
     * One round trip: try the session lock; only if taken, remember the session's idle bound,
     * bound it by the TTL and advance the counter, committing durably. Parameters: key, idle
     * timeout in ms, resource. Always one row: whether the lock was taken, the token (null if
     * not taken, or if the upsert returned nothing), the session's previous idle_session_timeout.
     */
    static String trySessionLock(String table) {
        return "WITH lock AS (SELECT pg_try_advisory_lock(?) AS taken, " + DURABLE_COMMIT + " AS durable),"
                + " lease AS (SELECT current_setting('idle_session_timeout') AS previous,"
                + " set_config('idle_session_timeout', ?, false) AS idle FROM lock WHERE taken),"
                + " granted AS (INSERT INTO " + table + " AS c (resource, token)"
                + " SELECT ?, " + CLOCK_MICROS + " FROM lock, lease WHERE lock.taken AND lock.durable IS NOT NULL"
                + ADVANCE
                + " RETURNING c.token)"
                + " SELECT lock.taken, (SELECT token FROM granted), (SELECT previous FROM lease) FROM lock";
    }

    /** Renewal: reset the idle bound and report whether this session still holds the key (parameters: ms, hi, lo). */
    static final String RENEW = "SELECT set_config('idle_session_timeout', ?, false),"
            + " EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
            + " AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1 AND granted)";

    /**
     * Release: unlock and put back the session's own idle bound before the connection goes back
     * to its pool (parameters: key, the idle_session_timeout the session had before the acquire).
     */
    static final String RELEASE = "SELECT pg_advisory_unlock(?), set_config('idle_session_timeout', ?, false)";

    /**
     * After a failed acquire statement: session locks survive a rollback, so drop any this
     * session took (a failed statement's session-level set_config is rolled back with it).
     */
    static final String UNLOCK_ALL = "SELECT pg_advisory_unlock_all()";

    /** Transaction scope, blocking; makes the caller's commit durable (parameters: key, resource). */
    static String transactionLock(String table) {
        return transactionStatement(table, "pg_advisory_xact_lock(?) IS NOT NULL");
    }

    /** Transaction scope, one try, durable commit (parameters: key, resource); no token when held elsewhere. */
    static String transactionTryLock(String table) {
        return transactionStatement(table, "pg_try_advisory_xact_lock(?)");
    }

    /**
     * Always one row: the transaction's isolation level and the token (null if the lock was not
     * taken). The lock is only tried at READ COMMITTED (or READ UNCOMMITTED, the same in
     * PostgreSQL): at a higher level nothing is locked or counted, and the caller refuses.
     * ({@code pg_advisory_xact_lock} returns a void value, which is not null: "IS NOT NULL" is true once it returns.)
     */
    private static String transactionStatement(String table, String takeLock) {
        return "WITH level AS (SELECT current_setting('transaction_isolation') AS isolation),"
                + " lock AS (SELECT " + takeLock + " AS taken, " + DURABLE_COMMIT + " AS durable FROM level"
                + " WHERE isolation IN ('read committed', 'read uncommitted')),"
                + " granted AS (INSERT INTO " + table + " AS c (resource, token)"
                + " SELECT ?, " + CLOCK_MICROS + " FROM lock WHERE lock.taken AND lock.durable IS NOT NULL"
                + ADVANCE
                + " RETURNING c.token)"
                + " SELECT level.isolation, (SELECT token FROM granted) FROM level";
    }

    /** The checks at build time: server version and whether the counter table exists (parameter: table). */
    static final String PREFLIGHT = "SELECT current_setting('server_version_num')::int, to_regclass(?) IS NOT NULL";

    /** Inspection (parameters: hi, lo, resource). */
    static String inspect(String table) {
        return "SELECT (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid::bigint = ? AND objid::bigint = ?"
                + " AND objsubid = 1 AND granted LIMIT 1), (SELECT token FROM " + table + " WHERE resource = ?)";
    }

    static long high(long key) {
        return key >>> 32;
    }

    static long low(long key) {
        return key & 0xffffffffL;
    }
}
