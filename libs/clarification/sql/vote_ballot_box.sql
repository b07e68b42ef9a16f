-- vote_ballot_box: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
SELECT EXISTS (SELECT 1 FROM task_session_messages bundle_m
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
        OR malformed_m.turn_id IS DISTINCT FROM bundle_m.turn_id)))) AS active,
              (SELECT m.metadata->'routing' FROM task_session_messages m
                WHERE m.metadata->>'pending_id' = $1 AND m.type = 'clarification_request' ORDER BY m.created_at, m.id LIMIT 1) AS routing,
              (SELECT json_agg(json_build_object('voter', v.voter, 'seq', v.seq::text, 'caller_kind', v.caller_kind, 'caller_user_id', v.caller_user_id,
                        'caller_name', v.caller_name, 'surface', v.surface, 'rejected', v.rejected, 'reject_reason', v.reject_reason,
                        'answers', v.answers, 'at', v.at) ORDER BY v.seq)
                 FROM clarification_votes v WHERE v.pending_id = $1) AS votes
