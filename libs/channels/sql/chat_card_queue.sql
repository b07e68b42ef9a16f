-- chat_card_queue: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 pending_ids
--   $3 destinations
WITH queued AS (
         INSERT INTO chat_cards (id, pending_id, platform, destination)
         SELECT gen_random_uuid()::text, card.pending_id, $1, card.destination
           FROM unnest($2::text[], $3::text[]) AS card(pending_id, destination)
         ON CONFLICT (pending_id, platform, destination) DO NOTHING RETURNING id)
       SELECT pg_notify('parley_chat_cards', '') FROM queued LIMIT 1
