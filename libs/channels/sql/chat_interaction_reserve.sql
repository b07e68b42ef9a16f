-- chat_interaction_reserve: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 interaction_id
--   $3 abandoned_after_ms
WITH fresh AS (
         INSERT INTO chat_interactions (platform, interaction_id) VALUES ($1, $2)
         ON CONFLICT (platform, interaction_id) DO UPDATE SET created_at = clock_timestamp()
          WHERE chat_interactions.outcome IS NULL
            AND chat_interactions.created_at < clock_timestamp() - make_interval(secs => $3::double precision / 1000)
         RETURNING true AS reserved)
       SELECT COALESCE((SELECT reserved FROM fresh), false) AS reserved,
              (SELECT outcome FROM chat_interactions WHERE platform = $1 AND interaction_id = $2) AS outcome
