-- The toolkit tables as released before keys compared exactly (test fixture for the upgrade).
-- The fencing toolkit's own tables (MySQL 8 / MariaDB 10.6+). Repeatable and idempotent: safe to
-- apply under the toolkit's history table or inside an application's own Flyway run.
-- Keys use a binary collation: resource names are case-sensitive.

-- fencing-jdbc's fence row: per resource, the highest token a fenced transaction has presented.
CREATE TABLE IF NOT EXISTS fencing_fence (
    resource   VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    token      BIGINT       NOT NULL,
    updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

-- lock-postgres-advisory's durable token counter (kept on both vendors for one schema).
CREATE TABLE IF NOT EXISTS fencing_token_counter (
    resource   VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    token      BIGINT       NOT NULL,
    updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

-- fencing-jdbc's JdbcFencedStore: item_value NULL is a tombstone that keeps the token of the delete.
CREATE TABLE IF NOT EXISTS fencing_store (
    item_key   VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    item_value LONGTEXT     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    token      BIGINT       NOT NULL,
    version    BIGINT       NOT NULL,
    updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;
