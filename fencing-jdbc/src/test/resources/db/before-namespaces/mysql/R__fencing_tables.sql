-- The toolkit tables as released before fencing_fence had its lock and row namespaces (test fixture for the upgrade).
-- The fencing toolkit's own tables (MySQL 8 / MariaDB 10.6+). Repeatable and idempotent: safe to
-- apply under the toolkit's history table or inside an application's own Flyway run.
--
-- Keys are VARBINARY: compared byte for byte, so 'a', 'A' and 'a ' are three keys. (A _bin
-- collation is not enough: utf8mb4_bin pads with spaces, so 'a' = 'a ', and MariaDB's
-- utf8mb4_0900_bin is an alias of utf8mb4_bin.) 1024 bytes hold 256 characters of UTF-8.
-- Times are DATETIME(6): TIMESTAMP stops at 2038-01-19.

-- fencing-jdbc's fence row: per resource, the highest token a fenced transaction has presented.
CREATE TABLE IF NOT EXISTS fencing_fence (
    resource   VARBINARY(1024) NOT NULL PRIMARY KEY,
    token      BIGINT          NOT NULL,
    updated_at DATETIME(6)     NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

-- lock-postgres-advisory's durable token counter (kept on both vendors for one schema).
CREATE TABLE IF NOT EXISTS fencing_token_counter (
    resource   VARBINARY(1024) NOT NULL PRIMARY KEY,
    token      BIGINT          NOT NULL,
    updated_at DATETIME(6)     NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

-- fencing-jdbc's JdbcFencedStore: item_value NULL is a tombstone that keeps the token of the delete;
-- fence_resource is the lock whose tokens fence the key (NULL in rows written before it was kept:
-- the next write binds them).
CREATE TABLE IF NOT EXISTS fencing_store (
    item_key       VARBINARY(1024) NOT NULL PRIMARY KEY,
    item_value     LONGTEXT        CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    token          BIGINT          NOT NULL,
    version        BIGINT          NOT NULL,
    fence_resource VARBINARY(1024) NULL,
    updated_at     DATETIME(6)     NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB;

-- Installs made before: keys were VARCHAR utf8mb4_bin (PAD SPACE) and times TIMESTAMP(6).
-- Converting keeps every row (no two of them can become equal: bytes tell apart more than
-- utf8mb4_bin did); on tables already converted it changes nothing.
ALTER TABLE fencing_fence
    MODIFY resource   VARBINARY(1024) NOT NULL,
    MODIFY updated_at DATETIME(6)     NOT NULL DEFAULT CURRENT_TIMESTAMP(6);
ALTER TABLE fencing_token_counter
    MODIFY resource   VARBINARY(1024) NOT NULL,
    MODIFY updated_at DATETIME(6)     NOT NULL DEFAULT CURRENT_TIMESTAMP(6);
ALTER TABLE fencing_store
    MODIFY item_key   VARBINARY(1024) NOT NULL,
    MODIFY updated_at DATETIME(6)     NOT NULL DEFAULT CURRENT_TIMESTAMP(6);

-- Installs made before fence_resource: add it (MySQL has no ADD COLUMN IF NOT EXISTS).
SET @fencing_add_resource = (SELECT IF(COUNT(*) = 0,
    'ALTER TABLE fencing_store ADD COLUMN fence_resource VARBINARY(1024) NULL AFTER version', 'DO 0')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'fencing_store' AND column_name = 'fence_resource');
PREPARE fencing_add_resource FROM @fencing_add_resource;
EXECUTE fencing_add_resource;
DEALLOCATE PREPARE fencing_add_resource;
