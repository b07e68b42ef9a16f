-- chat_card_shown: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 owner
--   $3 version
--   $4 channel_ref
--   $5 message_ref
UPDATE chat_cards SET shown_version = GREATEST(shown_version, $3), channel_ref = COALESCE($4, channel_ref), message_ref = COALESCE($5, message_ref),
              lease_owner = NULL, lease_expires_at = NULL, last_error = NULL, attempts = 0
        WHERE id = $1 AND lease_owner = $2 RETURNING id
