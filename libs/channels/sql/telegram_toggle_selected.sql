-- telegram_toggle_selected: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 account_id
SELECT selected FROM chat_toggles WHERE platform = 'telegram' AND pending_id = $1 AND platform_user_id = $2
