-- worker_bundle_heads: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 visible_workspace_ids
SELECT heads.worker_id AS "worker_id", heads.task_id AS "task_id", heads.pending_id AS "pending_id" FROM (SELECT DISTINCT ON (cm.task_session_id) cm.task_session_id AS "worker_id", t.id AS "task_id", cm.metadata->>'pending_id' AS "pending_id", cm.created_at AS "created_at" FROM "task_session_messages" "cm" INNER JOIN "task_sessions" "cs" ON cs.id = cm.task_session_id  INNER JOIN "tasks" "t" ON t.id = cs.task_id WHERE ((((cm.type = 'clarification_request'
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
                 WHERE active_s.id = cm.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')))) AND (CAST($1 AS text[]) IS NULL OR t.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id) OR t.workspace_id = ANY(CAST($1 AS text[]))) ORDER BY cm.task_session_id ASC, cm.created_at DESC, cm.metadata->>'pending_id' DESC) "heads" ORDER BY heads.created_at ASC, heads.worker_id ASC
