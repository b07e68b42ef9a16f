-- telegram_toggle_toggle: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 account_id
--   $3 option_id
INSERT INTO chat_toggles (platform, pending_id, platform_user_id, selected) VALUES ('telegram', $1, $2, ARRAY[$3::text])
       ON CONFLICT (platform, pending_id, platform_user_id) DO UPDATE
          SET selected = CASE WHEN $3 = ANY(chat_toggles.selected) THEN array_remove(chat_toggles.selected, $3) ELSE chat_toggles.selected || $3 END,
              updated_at = clock_timestamp()
       RETURNING selected
