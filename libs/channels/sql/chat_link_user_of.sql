-- chat_link_user_of: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 account_id
SELECT user_id FROM chat_links WHERE platform = $1 AND platform_user_id = $2
