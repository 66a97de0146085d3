-- The fencing toolkit's own tables (PostgreSQL). Repeatable and idempotent: safe to apply under
-- the toolkit's history table or inside an application's own Flyway run.
--
-- Keys use the "C" collation: compared byte for byte, whatever the database's default collation,
-- so 'a', 'A' and 'a ' are three keys.

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
-- already compare exactly; "C" makes it independent of the database. Unchanged columns are left
-- as they are.
ALTER TABLE fencing_fence ALTER COLUMN resource TYPE VARCHAR(256) COLLATE "C";
ALTER TABLE fencing_token_counter ALTER COLUMN resource TYPE VARCHAR(256) COLLATE "C";
ALTER TABLE fencing_store ALTER COLUMN item_key TYPE VARCHAR(256) COLLATE "C";
ALTER TABLE fencing_store ADD COLUMN IF NOT EXISTS fence_resource VARCHAR(256) COLLATE "C";

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
