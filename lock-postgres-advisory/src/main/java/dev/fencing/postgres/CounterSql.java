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
     * One round trip: try the session lock; only if taken, bound the session's idle time by the
     * TTL and advance the counter. Parameters: key, idle timeout in ms, resource. Returns the
     * token, or no row when the lock is held elsewhere.
     */
    static String trySessionLock(String table) {
        return "WITH lock AS (SELECT pg_try_advisory_lock(?) AS taken),"
                + " lease AS (SELECT set_config('idle_session_timeout', ?, false) AS idle FROM lock WHERE taken)"
                + " INSERT INTO " + table + " AS c (resource, token) SELECT ?, 1 FROM lock, lease WHERE lock.taken"
                + " ON CONFLICT (resource) DO UPDATE SET token = c.token + 1, updated_at = CURRENT_TIMESTAMP"
                + " RETURNING token";
    }

    /** Renewal: reset the idle bound and report whether this session still holds the key (parameters: ms, hi, lo). */
    static final String RENEW = "SELECT set_config('idle_session_timeout', ?, false),"
            + " EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
            + " AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1 AND granted)";

    /** Release: unlock and lift the idle bound before the connection goes back to its pool (parameter: key). */
    static final String RELEASE = "SELECT pg_advisory_unlock(?), set_config('idle_session_timeout', '0', false)";

    /** After a failed acquire statement: session locks survive a rollback, so drop any this session took. */
    static final String UNLOCK_ALL = "SELECT pg_advisory_unlock_all(), set_config('idle_session_timeout', '0', false)";

    /** Transaction scope, blocking (parameters: key, resource). */
    static String transactionLock(String table) {
        return "WITH lock AS (SELECT pg_advisory_xact_lock(?) AS locked)"
                + " INSERT INTO " + table + " AS c (resource, token) SELECT ?, 1 FROM lock"
                + " ON CONFLICT (resource) DO UPDATE SET token = c.token + 1, updated_at = CURRENT_TIMESTAMP"
                + " RETURNING token";
    }

    /** Transaction scope, one try (parameters: key, resource); no row when held elsewhere. */
    static String transactionTryLock(String table) {
        return "WITH lock AS (SELECT pg_try_advisory_xact_lock(?) AS taken)"
                + " INSERT INTO " + table + " AS c (resource, token) SELECT ?, 1 FROM lock WHERE lock.taken"
                + " ON CONFLICT (resource) DO UPDATE SET token = c.token + 1, updated_at = CURRENT_TIMESTAMP"
                + " RETURNING token";
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
