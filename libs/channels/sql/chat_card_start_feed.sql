-- chat_card_start_feed: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 start_position
INSERT INTO chat_feed (platform, position) VALUES ($1, $2::bigint) ON CONFLICT (platform) DO NOTHING
