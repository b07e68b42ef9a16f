-- telegram_poller_release: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 owner
UPDATE chat_pollers SET owner = NULL, expires_at = NULL WHERE platform = 'telegram' AND owner = $1
