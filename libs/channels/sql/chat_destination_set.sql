-- chat_destination_set: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
--   $2 platform
--   $3 destination
INSERT INTO chat_destinations (workspace_id, platform, destination) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, platform) DO UPDATE SET destination = EXCLUDED.destination, updated_at = clock_timestamp()
       RETURNING workspace_id, platform, destination, updated_at
