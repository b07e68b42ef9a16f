-- workspace_list (visible): a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 after_at
--   $2 after_id
--   $3 limit
--   $4 ids
SELECT w.id, w.name, w.owner_id, w.created_at, to_char(w.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_key FROM "workspaces" "w" WHERE ((w.created_at, w.id) > (COALESCE(CAST($1 AS timestamptz), '-infinity'), COALESCE(CAST($2 AS text), ''))) AND w.id = ANY(CAST($4 AS text[])) ORDER BY w.created_at ASC, w.id ASC LIMIT $3
