-- The fencing toolkit's own tables (PostgreSQL). Repeatable and idempotent: safe to apply under
-- the toolkit's history table or inside an application's own Flyway run.
--
-- Keys use the "C" collation: compared byte for byte, whatever the database's default collation,
-- so 'a', 'A' and 'a ' are three keys.

-- Applied again over its own tables, each CREATE ... IF NOT EXISTS would send a notice ("already
-- exists, skipping"), which Flyway logs as a WARN: notices are off while the script runs, and the
-- caller's level comes back at its end (with the transaction, if the script fails).
SELECT set_config('fencing.caller_client_min_messages', current_setting('client_min_messages'), false);
SET client_min_messages = warning;

-- fencing-jdbc's marks, in two namespaces that never meet: kind 'lock' holds a lock's fence row
-- (resource = the lock's name: the highest token a fenced transaction or row guard write of that
-- lock presented), kind 'row' the row guard's entries (resource = '<schema>.<table>:<key>': the mark
-- a row's fenced delete or insert left). A lock may be named like a row entry and still fence only
-- itself.
CREATE TABLE IF NOT EXISTS fencing_fence (
    kind       VARCHAR(4)   COLLATE "C" NOT NULL,
    resource   VARCHAR(256) COLLATE "C" NOT NULL,
    token      BIGINT                   NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (kind, resource)
);

-- lock-postgres-advisory's durable token counter: per resource, the last token issued.
CREATE TABLE IF NOT EXISTS fencing_token_counter (
    resource   VARCHAR(256) COLLATE "C" NOT NULL PRIMARY KEY,
    token      BIGINT                   NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- fencing-jdbc's JdbcFencedStore: a fenced key-value table; item_value NULL is a tombstone that
-- keeps the token of the delete; fence_resource is the lock whose tokens fence the key (NULL in
-- rows written before it was kept: the next write binds them).
CREATE TABLE IF NOT EXISTS fencing_store (
    item_key       VARCHAR(256) COLLATE "C" NOT NULL PRIMARY KEY,
    item_value     TEXT,
    token          BIGINT                   NOT NULL,
    version        BIGINT                   NOT NULL,
    fence_resource VARCHAR(256) COLLATE "C",
    updated_at     TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Installs made before: keys had the database's default collation. Deterministic collations
-- already compare exactly; "C" makes it independent of the database. Each change is made only when
-- the catalog shows the column differs: any ALTER TABLE takes an ACCESS EXCLUSIVE lock (even one
-- that changes nothing, even ADD COLUMN IF NOT EXISTS), which would wait behind every open fenced
-- transaction and block the next ones, and needs the table's owner. Applying the script to tables
-- already in shape takes no lock on them and needs no ownership.
DO $$
DECLARE
    key RECORD;
BEGIN
    FOR key IN SELECT * FROM (VALUES ('fencing_fence', 'resource'), ('fencing_token_counter', 'resource'),
                                     ('fencing_store', 'item_key')) AS keys(table_name, column_name) LOOP
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
                   LEFT JOIN pg_catalog.pg_collation c ON c.oid = a.attcollation
                   WHERE a.attrelid = to_regclass(key.table_name) AND a.attname = key.column_name
                     AND NOT a.attisdropped
                     AND (a.atttypid <> 'varchar'::regtype OR a.atttypmod <> 256 + 4
                          OR c.collname IS DISTINCT FROM 'C')) THEN
            EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE VARCHAR(256) COLLATE "C"', key.table_name,
                           key.column_name);
        END IF;
    END LOOP;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
                   WHERE attrelid = to_regclass('fencing_store') AND attname = 'fence_resource'
                     AND NOT attisdropped) THEN
        ALTER TABLE fencing_store ADD COLUMN fence_resource VARCHAR(256) COLLATE "C";
    END IF;
END $$;

-- Installs made before the namespaces: one row per name, lock fence rows and row entries alike.
-- Every existing row is kept as a lock's fence row, and one named like a row entry
-- ('<schema>.<table>:<key>') is also kept as that row's entry with the same token: the old row was
-- both marks at once, so each keeps its value and no mark goes back. Done once, in one statement
-- (so one transaction), only when the catalog shows no kind column: applying the script again
-- takes no lock on the table. Afterwards kind has no default, so a build from before the
-- namespaces fails on its first insert instead of writing where this build does not look.
DO $$
DECLARE
    old_key TEXT;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
                   WHERE attrelid = 'fencing_fence'::regclass AND attname = 'kind' AND NOT attisdropped) THEN
        SELECT conname INTO old_key FROM pg_catalog.pg_constraint
            WHERE conrelid = 'fencing_fence'::regclass AND contype = 'p';
        ALTER TABLE fencing_fence ADD COLUMN kind VARCHAR(4) COLLATE "C" NOT NULL DEFAULT 'lock';
        ALTER TABLE fencing_fence ALTER COLUMN kind DROP DEFAULT;
        IF old_key IS NOT NULL THEN
            EXECUTE format('ALTER TABLE fencing_fence DROP CONSTRAINT %I', old_key);
        END IF;
        ALTER TABLE fencing_fence ADD PRIMARY KEY (kind, resource);
        INSERT INTO fencing_fence (kind, resource, token, updated_at)
            SELECT 'row', resource, token, updated_at FROM fencing_fence
            WHERE kind = 'lock' AND resource LIKE '%.%:%';
    END IF;
END $$;

SELECT set_config('client_min_messages', current_setting('fencing.caller_client_min_messages'), false);
