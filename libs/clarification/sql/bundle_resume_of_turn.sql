-- bundle_resume_of_turn: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 turn_id
SELECT metadata->>'resume_of' AS resume_of FROM task_session_turns WHERE id = $1
