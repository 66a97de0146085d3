-- The toolkit tables as released before keys compared exactly (test fixture for the upgrade).
-- The fencing toolkit's own tables (PostgreSQL). Repeatable and idempotent: safe to apply under
-- the toolkit's history table or inside an application's own Flyway run.

-- fencing-jdbc's fence row: per resource, the highest token a fenced transaction has presented.
CREATE TABLE IF NOT EXISTS fencing_fence (
    resource   VARCHAR(256)             NOT NULL PRIMARY KEY,
    token      BIGINT                   NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- lock-postgres-advisory's durable token counter: per resource, the last token issued.
CREATE TABLE IF NOT EXISTS fencing_token_counter (
    resource   VARCHAR(256)             NOT NULL PRIMARY KEY,
    token      BIGINT                   NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- fencing-jdbc's JdbcFencedStore: a fenced key-value table; item_value NULL is a tombstone that
-- keeps the token of the delete.
CREATE TABLE IF NOT EXISTS fencing_store (
    item_key   VARCHAR(256)             NOT NULL PRIMARY KEY,
    item_value TEXT,
    token      BIGINT                   NOT NULL,
    version    BIGINT                   NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);
