-- question_event_prune_mark: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 last
UPDATE question_event_retention SET pruned_through = GREATEST(pruned_through, $1::bigint) WHERE id = 1
