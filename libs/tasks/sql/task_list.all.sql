-- task_list (all): a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 visible_workspace_ids
--   $2 after_at
--   $3 after_id
--   $4 limit
SELECT t.id, t.workspace_id, t.title, t.state, t.archived_at, t.created_at, t.updated_at, CASE WHEN EXISTS (SELECT 1 FROM task_sessions pa_s
  WHERE pa_s.task_id = t.id AND EXISTS (SELECT 1 FROM task_session_messages guard_m
    WHERE guard_m.task_session_id = pa_s.id AND (((guard_m.type = 'clarification_request'
    AND guard_m.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = guard_m.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(guard_m.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = guard_m.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = guard_m.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> guard_m.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM guard_m.turn_id))))) THEN 'clarification' END AS task_pending_action, (SELECT CASE WHEN EXISTS (SELECT 1 FROM task_session_messages guard_m
    WHERE guard_m.task_session_id = primary_s.id AND (((guard_m.type = 'clarification_request'
    AND guard_m.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = guard_m.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(guard_m.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = guard_m.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = guard_m.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> guard_m.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM guard_m.turn_id)))) THEN 'clarification' END
  FROM task_sessions primary_s WHERE primary_s.task_id = t.id
  ORDER BY primary_s.created_at DESC, primary_s.id DESC LIMIT 1) AS primary_session_pending_action, to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_key FROM "tasks" "t" WHERE (CAST($1 AS text[]) IS NULL OR t.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id) OR t.workspace_id = ANY(CAST($1 AS text[]))) AND ((t.created_at, t.id) > (COALESCE(CAST($2 AS timestamptz), '-infinity'), COALESCE(CAST($3 AS text), ''))) ORDER BY t.created_at ASC, t.id ASC LIMIT $4
