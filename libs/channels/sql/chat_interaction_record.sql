-- chat_interaction_record: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 platform
--   $2 interaction_id
--   $3 outcome
UPDATE chat_interactions SET outcome = $3::jsonb WHERE platform = $1 AND interaction_id = $2
