-- Test fixture: the MySQL/MariaDB script as committed in 36f7ffb, the version before 0e4e1d4.
-- The fencing toolkit's own tables (MySQL 8 / MariaDB 10.6+). Repeatable and idempotent: safe to
-- apply under the toolkit's history table or inside an application's own Flyway run.
--
-- Keys are VARBINARY: compared byte for byte, so 'a', 'A' and 'a ' are three keys. (A _bin
-- collation is not enough: utf8mb4_bin pads with spaces, so 'a' = 'a ', and MariaDB's
-- utf8mb4_0900_bin is an alias of utf8mb4_bin.) 1024 bytes hold 256 characters of UTF-8.
-- Times are DATETIME(6): TIMESTAMP stops at 2038-01-19.

-- fencing-jdbc's marks, in two namespaces that never meet: kind 'lock' holds a lock's fence row
-- (resource = the lock's name: the highest token a fenced transaction or row guard write of that
-- lock presented), kind 'row' the row guard's entries (resource = '<schema>.<table>:<key>': the mark
-- a row's fenced delete or insert left). A lock may be named like a row entry and still fence only
-- itself.
CREATE TABLE IF NOT EXISTS fencing_fence (
    kind       VARCHAR(4)      CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    resource   VARBINARY(1024) NOT NULL,
    token      BIGINT          NOT NULL,
    updated_at DATETIME(6)     NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (kind, resource)
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

-- Installs made before the namespaces: one row per name, lock fence rows and row entries alike.
-- MySQL/MariaDB commit each DDL statement on its own, so this is done in steps that are each safe
-- to repeat, and a run cut short is finished by the next one. fencing-jdbc refuses the table until
-- the last step has removed kind's default.
-- 1. Only when the catalog shows no kind column: one ALTER adds it with the default '' ("not yet
--    classified": the existing rows, and those an instance of an earlier build still writes) and
--    makes it part of the key.
SET @fencing_add_kind = (SELECT IF(COUNT(*) = 0,
    'ALTER TABLE fencing_fence ADD COLUMN kind VARCHAR(4) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '''' FIRST,
         DROP PRIMARY KEY, ADD PRIMARY KEY (kind, resource)', 'DO 0')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'fencing_fence' AND column_name = 'kind');
PREPARE fencing_add_kind FROM @fencing_add_kind;
EXECUTE fencing_add_kind;
DEALLOCATE PREPARE fencing_add_kind;
-- 2. Every unclassified row is kept as a lock's fence row, and one named like a row entry
--    ('<schema>.<table>:<key>') also as that row's entry with the same token: the old row was both
--    marks at once, so each keeps its value and no mark goes back (a repeated step keeps the
--    greater token). Then the unclassified rows go. On a converted table these statements find no
--    '' rows through the key and change nothing.
INSERT INTO fencing_fence (kind, resource, token, updated_at)
    SELECT 'row', legacy.resource, legacy.token, legacy.updated_at
    FROM (SELECT resource, token, updated_at FROM fencing_fence WHERE kind = '' AND resource LIKE '%.%:%') AS legacy
    ON DUPLICATE KEY UPDATE token = GREATEST(fencing_fence.token, VALUES(token));
INSERT INTO fencing_fence (kind, resource, token, updated_at)
    SELECT 'lock', legacy.resource, legacy.token, legacy.updated_at
    FROM (SELECT resource, token, updated_at FROM fencing_fence WHERE kind = '') AS legacy
    ON DUPLICATE KEY UPDATE token = GREATEST(fencing_fence.token, VALUES(token));
DELETE FROM fencing_fence WHERE kind = '';
-- 3. Only while kind has a default: remove it (metadata only). From here an earlier build's insert,
--    which names no kind, fails instead of writing where this build does not look, and fencing-jdbc
--    accepts the table.
SET @fencing_kind_default = (SELECT IF(COUNT(*) = 0, 'DO 0',
    'ALTER TABLE fencing_fence ALTER COLUMN kind DROP DEFAULT')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'fencing_fence' AND column_name = 'kind'
      AND column_default IS NOT NULL);
PREPARE fencing_kind_default FROM @fencing_kind_default;
EXECUTE fencing_kind_default;
DEALLOCATE PREPARE fencing_kind_default;
-- 4. Rows an earlier build wrote between steps 2 and 3: classified as in step 2.
INSERT INTO fencing_fence (kind, resource, token, updated_at)
    SELECT 'row', legacy.resource, legacy.token, legacy.updated_at
    FROM (SELECT resource, token, updated_at FROM fencing_fence WHERE kind = '' AND resource LIKE '%.%:%') AS legacy
    ON DUPLICATE KEY UPDATE token = GREATEST(fencing_fence.token, VALUES(token));
INSERT INTO fencing_fence (kind, resource, token, updated_at)
    SELECT 'lock', legacy.resource, legacy.token, legacy.updated_at
    FROM (SELECT resource, token, updated_at FROM fencing_fence WHERE kind = '') AS legacy
    ON DUPLICATE KEY UPDATE token = GREATEST(fencing_fence.token, VALUES(token));
DELETE FROM fencing_fence WHERE kind = '';
