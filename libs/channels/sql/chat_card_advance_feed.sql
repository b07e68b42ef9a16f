-- chat_card_advance_feed: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 position
UPDATE chat_feed SET position = $2::bigint WHERE platform = $1
