-- chat_link_link: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 account_id
--   $3 user_id
INSERT INTO chat_links (platform, platform_user_id, user_id)
       SELECT $1, $2, u.id FROM users u WHERE u.id = $3
       ON CONFLICT (platform, platform_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = clock_timestamp()
       RETURNING platform, platform_user_id, user_id, created_at
