-- chat_card_voted_on: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
WITH bumped AS (
         UPDATE chat_cards SET wanted_version = wanted_version + 1, next_attempt_at = clock_timestamp(), attempts = 0
          WHERE pending_id = $1 AND (shown_version >= wanted_version OR lease_owner IS NOT NULL) RETURNING id)
       SELECT pg_notify('parley_chat_cards', '') FROM bumped LIMIT 1
