-- delivery_ownership_abandon_revert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 owner
--   $3 session_id
WITH reverted AS (
           UPDATE task_session_messages m
              SET metadata = (m.metadata - 'response' - 'response_delivery_pending' - 'delivery_owner' - 'resolved_by' - 'receipt') || '{"status": "pending"}'::jsonb,
                  updated_at = clock_timestamp()
            WHERE m.metadata->>'pending_id' = $1 AND m.metadata->>'response_delivery_pending' = 'true'
              AND m.metadata->>'delivery_owner' IS NOT DISTINCT FROM $2 AND m.type = 'clarification_request'
            RETURNING m.id),
         dropped AS (
           DELETE FROM task_session_turns t
            WHERE t.metadata->>'resume_of' = $1 AND t.task_session_id = $3 AND EXISTS (SELECT 1 FROM reverted)
              AND NOT EXISTS (SELECT 1 FROM task_session_messages tm WHERE tm.turn_id = t.id)
           RETURNING id),
         handoff AS (DELETE FROM clarification_handoffs WHERE pending_id = $1 AND EXISTS (SELECT 1 FROM reverted) RETURNING pending_id),
         unwon AS (
           UPDATE clarification_audit SET outcome = 'failed', detail = 'the claim was rolled back: its answer could not be delivered, and the clarification is pending again'
            WHERE pending_id = $1 AND outcome = 'won' AND EXISTS (SELECT 1 FROM reverted)
           RETURNING id)
         SELECT r.id, (SELECT COUNT(*) FROM dropped) + (SELECT COUNT(*) FROM handoff) + (SELECT COUNT(*) FROM unwon) AS written FROM reverted r
