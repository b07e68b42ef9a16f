-- chat_destination_clear: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
--   $2 platform
DELETE FROM chat_destinations WHERE workspace_id = $1 AND platform = $2
