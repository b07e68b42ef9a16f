-- question_event_settled_head: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT COALESCE((SELECT MAX(id) FROM question_events WHERE id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint * 65536), 0)::text AS head
