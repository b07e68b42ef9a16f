-- bundle_refresh_session_index: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
--   $2 pending_ids
INSERT INTO clarification_bundles (pending_id, session_id, task_id, visibility_key, created_at, active)
    SELECT derived.pending_id, derived.session_id, derived.task_id, COALESCE((SELECT CASE WHEN key_t.workspace_id = ''
      OR NOT EXISTS (SELECT 1 FROM workspaces key_w WHERE key_w.id = key_t.workspace_id)
    THEN '' ELSE key_t.workspace_id END
             FROM tasks key_t WHERE key_t.id = derived.task_id), ''), derived.created_at, derived.active
      FROM (SELECT b.pending_id,
        (array_agg(b.task_session_id ORDER BY b.created_at, b.id))[1] AS session_id,
        COALESCE((array_agg(COALESCE(NULLIF(b.task_id, ''), s.task_id, '') ORDER BY b.created_at, b.id))[1], '') AS task_id,
        MIN(b.created_at) AS created_at,
        bool_or((((b.type = 'clarification_request'
    AND b.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = b.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(b.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = b.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = b.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> b.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM b.turn_id)))) AS active
      FROM (SELECT m.*, m.metadata->>'pending_id' AS pending_id FROM task_session_messages m
             WHERE m.type = 'clarification_request' AND m.metadata->>'pending_id' IN (SELECT pending_id FROM clarification_bundles WHERE session_id = $1 AND active
        UNION SELECT m.metadata->>'pending_id' FROM task_session_messages m WHERE m.task_session_id = $1 AND ((m.type = 'clarification_request'
    AND m.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = m.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(m.metadata->>'status', '') IN ('', 'pending'))
        UNION SELECT unnest($2::text[]))) b
      LEFT JOIN task_sessions s ON s.id = b.task_session_id
     GROUP BY b.pending_id) derived
    ON CONFLICT (pending_id) DO UPDATE SET active = EXCLUDED.active, created_at = EXCLUDED.created_at
      WHERE clarification_bundles.active IS DISTINCT FROM EXCLUDED.active
         OR clarification_bundles.created_at IS DISTINCT FROM EXCLUDED.created_at
    RETURNING pending_id, active
