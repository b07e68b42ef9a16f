-- chat_destination_manages: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
--   $2 owner
SELECT 1 AS one FROM workspaces WHERE id = $1 AND ($2::text IS NULL OR owner_id = $2)
