-- question_event_pruned_through: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT pruned_through::text AS pruned_through FROM question_event_retention WHERE id = 1
