-- bundle_current_turn_id: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
SELECT (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = $1 AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1) AS id
