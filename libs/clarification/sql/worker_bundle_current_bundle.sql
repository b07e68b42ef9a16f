-- worker_bundle_current_bundle: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 worker_id
SELECT m.id, m.task_session_id, m.task_id, s.task_id AS session_task_id, m.turn_id, m.content, m.metadata, m.created_at, (((m.type = 'clarification_request'
    AND m.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = m.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(m.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = m.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = m.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> m.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM m.turn_id))) AS row_active FROM task_session_messages m
         JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.type = 'clarification_request'
          AND m.metadata->>'pending_id' = (
            SELECT cm.metadata->>'pending_id' FROM task_session_messages cm
             WHERE cm.task_session_id = $1 AND ((((cm.type = 'clarification_request'
    AND cm.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = cm.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(cm.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = cm.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = cm.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> cm.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM cm.turn_id))) OR ((cm.type = 'clarification_request' AND cm.metadata->>'response_delivery_pending' = 'true') AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = cm.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED'))))
             ORDER BY cm.created_at DESC, cm.metadata->>'pending_id' DESC LIMIT 1)
        ORDER BY COALESCE(CASE WHEN m.metadata->>'question_index' ~ '^-?[0-9]{1,9}$'
  THEN (m.metadata->>'question_index')::int END, 0), m.created_at, m.id
