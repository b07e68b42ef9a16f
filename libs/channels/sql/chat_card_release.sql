-- chat_card_release: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 ids
--   $2 owner
UPDATE chat_cards SET lease_owner = NULL, lease_expires_at = NULL, attempts = GREATEST(attempts - 1, 0)
        WHERE id = ANY($1::text[]) AND lease_owner = $2
