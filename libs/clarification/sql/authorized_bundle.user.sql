-- authorized_bundle (user): a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 user_id
WITH bundle AS (
       SELECT m.id, m.task_session_id, m.task_id, s.task_id AS session_task_id, m.turn_id, m.content,
  m.metadata, m.created_at, m.updated_at, s.state AS session_state, s.resume_url AS session_resume_url,
              row_number() OVER (ORDER BY COALESCE(CASE WHEN m.metadata->>'question_index' ~ '^-?[0-9]{1,9}$'
  THEN (m.metadata->>'question_index')::int END, 0), m.created_at, m.id) AS d2
         FROM task_session_messages m LEFT JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.metadata->>'pending_id' = $1 AND m.type = 'clarification_request'),
     access AS (
       SELECT (SELECT (t.id IS NOT NULL AND t.id <> '' AND (t.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id) OR EXISTS (SELECT 1 FROM workspaces access_w WHERE access_w.id = t.workspace_id AND access_w.owner_id IN ('', $2))
    OR EXISTS (SELECT 1 FROM workspace_members access_m WHERE access_m.workspace_id = t.workspace_id AND access_m.user_id = $2))) FROM bundle m
                 LEFT JOIN tasks t ON t.id = COALESCE(NULLIF(m.task_id, ''), m.session_task_id, '')
                ORDER BY m.d2 LIMIT 1) AS allowed),
     state AS (SELECT CASE WHEN (SELECT allowed FROM access) THEN EXISTS (SELECT 1 FROM task_session_messages bundle_m
    WHERE bundle_m.metadata->>'pending_id' = $1 AND (((bundle_m.type = 'clarification_request'
    AND bundle_m.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = bundle_m.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(bundle_m.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = bundle_m.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = bundle_m.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> bundle_m.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM bundle_m.turn_id)))) END AS active)
     SELECT m.*, access.allowed, state.active FROM bundle m, access, state ORDER BY m.d2
