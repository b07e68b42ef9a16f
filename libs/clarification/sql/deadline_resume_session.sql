-- deadline_resume_session: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
        WHERE id = $1 AND state = 'WAITING_FOR_INPUT'
          AND NOT EXISTS (SELECT 1 FROM clarification_bundles b WHERE b.session_id = $1 AND b.active)
