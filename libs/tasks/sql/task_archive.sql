-- task_archive: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 state
UPDATE tasks SET state = $2, archived_at = COALESCE(archived_at, clock_timestamp()),
              updated_at = CASE WHEN archived_at IS NULL THEN clock_timestamp() ELSE updated_at END
        WHERE id = $1 RETURNING id, workspace_id, title, state, archived_at, created_at, updated_at
