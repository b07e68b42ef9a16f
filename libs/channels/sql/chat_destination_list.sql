-- chat_destination_list: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
SELECT workspace_id, platform, destination, updated_at FROM chat_destinations WHERE workspace_id = $1 ORDER BY platform
