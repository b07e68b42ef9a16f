-- question_event_prune: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 older_than
WITH gone AS (DELETE FROM question_events WHERE created_at < $1 AND id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint * 65536 RETURNING id)
         SELECT MAX(id)::text AS last, COUNT(*)::text AS count FROM gone
