-- chat_card_changed: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_ids
WITH bumped AS (
         UPDATE chat_cards SET wanted_version = wanted_version + 1, next_attempt_at = clock_timestamp(), attempts = 0
          WHERE pending_id = ANY($1::text[]) RETURNING id)
       SELECT pg_notify('parley_chat_cards', '') FROM bumped LIMIT 1
