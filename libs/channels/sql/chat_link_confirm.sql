-- chat_link_confirm: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 code_sha256
--   $2 user_id
WITH stale AS (DELETE FROM chat_link_requests WHERE expires_at < clock_timestamp() RETURNING code_sha256),
       spent AS (DELETE FROM chat_link_requests WHERE code_sha256 = $1 AND expires_at >= clock_timestamp() RETURNING platform, platform_user_id)
       INSERT INTO chat_links (platform, platform_user_id, user_id)
       SELECT spent.platform, spent.platform_user_id, u.id FROM spent JOIN users u ON u.id = $2
       ON CONFLICT (platform, platform_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = clock_timestamp()
       RETURNING platform, platform_user_id, user_id, created_at
