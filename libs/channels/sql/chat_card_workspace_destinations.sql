-- chat_card_workspace_destinations: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 workspace_ids
SELECT workspace_id, destination FROM chat_destinations WHERE platform = $1 AND workspace_id = ANY($2::text[])
