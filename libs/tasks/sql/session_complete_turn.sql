-- session_complete_turn: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 turn_id
--   $2 session_id
UPDATE task_session_turns SET completed_at = COALESCE(completed_at, clock_timestamp())
        WHERE id = $1 AND task_session_id = $2 RETURNING id, task_session_id, task_id, started_at, completed_at, metadata, created_at
