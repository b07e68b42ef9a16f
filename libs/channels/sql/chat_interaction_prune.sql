-- chat_interaction_prune: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 older_than
DELETE FROM chat_interactions WHERE created_at < $1
