-- chat_link_accounts_of: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 user_ids
SELECT platform, platform_user_id, user_id, created_at FROM chat_links
        WHERE platform = $1 AND user_id = ANY($2::text[]) ORDER BY user_id, created_at, platform_user_id
