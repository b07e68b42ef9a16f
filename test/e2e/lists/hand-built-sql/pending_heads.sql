SELECT b.pending_id, b.task_id, b.session_id, b.created_at, to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS scan_key FROM clarification_bundles b JOIN tasks t ON t.id = b.task_id
          WHERE b.active AND b.task_id <> ''
      AND b.created_at >= COALESCE($3::timestamptz, '-infinity')
      AND (b.created_at, b.pending_id) > (COALESCE($4::timestamptz, '-infinity'), COALESCE($5::text, '')) AND ($2::text IS NULL OR t.workspace_id = $2)
      AND ($6::text[] IS NULL OR t.workspace_id = ''
           OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id)
           OR t.workspace_id = ANY($6::text[]))
      AND (SELECT EXISTS (SELECT 1 FROM task_session_messages bundle_m
    WHERE bundle_m.metadata->>'pending_id' = b.pending_id AND (((bundle_m.type = 'clarification_request'
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
        OR malformed_m.turn_id IS DISTINCT FROM bundle_m.turn_id)))))
      AND NOT EXISTS (SELECT 1 FROM task_session_messages l16
                       WHERE l16.metadata->>'pending_id' = b.pending_id AND l16.type = 'clarification_request'
                         AND COALESCE(l16.metadata->>'question_id', '') = '') ORDER BY b.created_at, b.pending_id LIMIT $1