-- chat_card_feed_exists: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
SELECT 1 AS one FROM chat_feed WHERE platform = $1
