-- The toolkit tables as released before fencing_fence had its lock and row namespaces (test fixture for the upgrade).
-- The fencing toolkit's own tables (PostgreSQL). Repeatable and idempotent: safe to apply under
-- the toolkit's history table or inside an application's own Flyway run.
--
-- Keys use the "C" collation: compared byte for byte, whatever the database's default collation,
-- so 'a', 'A' and 'a ' are three keys.

-- fencing-jdbc's fence row: per resource, the highest token a fenced transaction has presented.
CREATE TABLE IF NOT EXISTS fencing_fence (
    resource   VARCHAR(256) COLLATE "C" NOT NULL PRIMARY KEY,
    token      BIGINT                   NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
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
