-- chat_card_claim_due: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 owner
--   $2 limit
--   $3 lease_ms
--   $4 platforms
WITH picked AS (
         SELECT id FROM chat_cards
          WHERE shown_version < wanted_version AND next_attempt_at <= clock_timestamp() AND platform = ANY($4::text[])
            AND (lease_expires_at IS NULL OR lease_expires_at < clock_timestamp())
          ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE chat_cards c SET lease_owner = $1, attempts = c.attempts + 1,
              lease_expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
         FROM picked WHERE c.id = picked.id
       RETURNING c.id, c.pending_id, c.platform, c.destination, c.channel_ref, c.message_ref, c.wanted_version, c.attempts
