-- chat_card_lock_feed: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
SELECT position::text AS position FROM chat_feed WHERE platform = $1 FOR UPDATE SKIP LOCKED
