-- The fencing toolkit's own tables (MySQL 8.0.19+ / MariaDB 10.6+). Repeatable and idempotent: safe to
-- apply under the toolkit's history table or inside an application's own Flyway run.
--
-- Keys are VARBINARY: compared byte for byte, so 'a', 'A' and 'a ' are three keys. (A _bin
-- collation is not enough: utf8mb4_bin pads with spaces, so 'a' = 'a ', and MariaDB's
-- utf8mb4_0900_bin is an alias of utf8mb4_bin.) 1024 bytes hold 256 characters of UTF-8.
-- Times are DATETIME(6): TIMESTAMP stops at 2038-01-19.

-- The session's sql_mode changes what these statements mean (EMPTY_STRING_IS_NULL reads '' as
-- NULL, which would turn the checks on kind below into ones that refuse nothing): the script runs
-- under a mode of its own and gives the caller's back at its end.
SET @fencing_caller_sql_mode = @@SESSION.sql_mode;
SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';

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
    PRIMARY KEY (kind, resource),
    CONSTRAINT fencing_fence_kind CHECK (kind IN ('lock', 'row'))
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
-- utf8mb4_bin did). Each table is altered only when the catalog shows it differs: an ALTER TABLE,
-- even one that changes nothing, waits for the metadata lock of every open transaction on the
-- table and queues every later statement behind it, and needs the ALTER privilege.
SET @fencing_exact_fencing_fence = (SELECT IF(COUNT(*) = 2, 'DO 0',
    'ALTER TABLE fencing_fence MODIFY resource VARBINARY(1024) NOT NULL,
         MODIFY updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'fencing_fence' AND is_nullable = 'NO'
      AND (column_name = 'resource' AND column_type = 'varbinary(1024)'
           OR column_name = 'updated_at' AND column_type = 'datetime(6)'
              AND LOWER(column_default) = 'current_timestamp(6)'));
PREPARE fencing_exact_fencing_fence FROM @fencing_exact_fencing_fence;
EXECUTE fencing_exact_fencing_fence;
DEALLOCATE PREPARE fencing_exact_fencing_fence;
SET @fencing_exact_fencing_token_counter = (SELECT IF(COUNT(*) = 2, 'DO 0',
    'ALTER TABLE fencing_token_counter MODIFY resource VARBINARY(1024) NOT NULL,
         MODIFY updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'fencing_token_counter' AND is_nullable = 'NO'
      AND (column_name = 'resource' AND column_type = 'varbinary(1024)'
           OR column_name = 'updated_at' AND column_type = 'datetime(6)'
              AND LOWER(column_default) = 'current_timestamp(6)'));
PREPARE fencing_exact_fencing_token_counter FROM @fencing_exact_fencing_token_counter;
EXECUTE fencing_exact_fencing_token_counter;
DEALLOCATE PREPARE fencing_exact_fencing_token_counter;
SET @fencing_exact_fencing_store = (SELECT IF(COUNT(*) = 2, 'DO 0',
    'ALTER TABLE fencing_store MODIFY item_key VARBINARY(1024) NOT NULL,
         MODIFY updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'fencing_store' AND is_nullable = 'NO'
      AND (column_name = 'item_key' AND column_type = 'varbinary(1024)'
           OR column_name = 'updated_at' AND column_type = 'datetime(6)'
              AND LOWER(column_default) = 'current_timestamp(6)'));
PREPARE fencing_exact_fencing_store FROM @fencing_exact_fencing_store;
EXECUTE fencing_exact_fencing_store;
DEALLOCATE PREPARE fencing_exact_fencing_store;

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
-- to repeat, and a run cut short is finished by the next one. fencing-jdbc refuses the table while
-- kind has a default (steps 1 to 4 leave one). An instance of an earlier build may still be running
-- beside any step: its insert names no kind, and its update names no kind either, so it must never
-- again create a row that update would count.
-- 1. Only when the catalog shows no kind column: one ALTER adds it with the default '' ("not yet
--    classified": the existing rows, and those an earlier build writes until step 2) and makes it
--    part of the key. Until step 2 every row is '', so an earlier build still sees its own marks.
SET @fencing_add_kind = (SELECT IF(COUNT(*) = 0,
    'ALTER TABLE fencing_fence ADD COLUMN kind VARCHAR(4) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '''' FIRST,
         DROP PRIMARY KEY, ADD PRIMARY KEY (kind, resource)', 'DO 0')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'fencing_fence' AND column_name = 'kind');
PREPARE fencing_add_kind FROM @fencing_add_kind;
EXECUTE fencing_add_kind;
DEALLOCATE PREPARE fencing_add_kind;
-- 2. Only when neither constraint on kind is there: one ALTER makes kind's default '-' and adds a
--    check that refuses it. From here an earlier build's insert fails whatever its sql_mode (a
--    session that is not strict takes the default too), before the rows are classified.
SET @fencing_close_kind = (SELECT IF(COUNT(*) = 0,
    'ALTER TABLE fencing_fence ALTER COLUMN kind SET DEFAULT ''-'',
         ADD CONSTRAINT fencing_fence_kind_unclassified CHECK (kind IN ('''', ''lock'', ''row''))', 'DO 0')
    FROM information_schema.table_constraints
    WHERE constraint_schema = DATABASE() AND table_name = 'fencing_fence' AND constraint_type = 'CHECK'
      AND constraint_name IN ('fencing_fence_kind', 'fencing_fence_kind_unclassified'));
PREPARE fencing_close_kind FROM @fencing_close_kind;
EXECUTE fencing_close_kind;
DEALLOCATE PREPARE fencing_close_kind;
-- 3. Every unclassified row is kept as a lock's fence row, and one named like a row entry
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
-- 4. Whatever of this is still to do, in one ALTER: drop the interim check, add the final one,
--    which also refuses '' (what a session that is not strict writes for a column without a
--    default), and remove the default. Each part is decided by the catalog, so a run that follows
--    another's late step 2 (two runs under two history tables at once) puts things right. From here
--    fencing-jdbc accepts the table; an earlier build's insert fails for want of a kind (strict) or
--    on the check (not strict).
SET @fencing_final_kind = (SELECT CONCAT_WS(', ',
        IF(COALESCE(SUM(c.constraint_name = 'fencing_fence_kind_unclassified'), 0) > 0,
            'DROP CONSTRAINT fencing_fence_kind_unclassified', NULL),
        IF(COALESCE(SUM(c.constraint_name = 'fencing_fence_kind'), 0) = 0,
            'ADD CONSTRAINT fencing_fence_kind CHECK (kind IN (''lock'', ''row''))', NULL),
        IF((SELECT COUNT(*) FROM information_schema.columns
            WHERE table_schema = DATABASE() AND table_name = 'fencing_fence' AND column_name = 'kind'
              AND column_default IS NOT NULL) > 0, 'ALTER COLUMN kind DROP DEFAULT', NULL))
    FROM information_schema.table_constraints AS c
    WHERE c.constraint_schema = DATABASE() AND c.table_name = 'fencing_fence' AND c.constraint_type = 'CHECK');
SET @fencing_final_kind = IF(@fencing_final_kind = '', 'DO 0', CONCAT('ALTER TABLE fencing_fence ', @fencing_final_kind));
PREPARE fencing_final_kind FROM @fencing_final_kind;
EXECUTE fencing_final_kind;
DEALLOCATE PREPARE fencing_final_kind;

SET SESSION sql_mode = @fencing_caller_sql_mode;
