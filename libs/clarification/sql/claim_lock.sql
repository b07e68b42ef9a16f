-- claim_lock: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
--   $2 pending_id
--   $3 process_id
--   $4 task_id
SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) IS NULL AS locked,
  (SELECT w.process_id FROM clarification_waiters w
    WHERE w.pending_id = $2 AND w.process_id <> $3 AND EXISTS (SELECT 1 FROM parley_processes live_p WHERE live_p.id = w.process_id AND live_p.expires_at > clock_timestamp()) LIMIT 1) AS remote_agent,
  COALESCE((SELECT t.workspace_id FROM tasks t WHERE t.id = $4), '') AS workspace_id
