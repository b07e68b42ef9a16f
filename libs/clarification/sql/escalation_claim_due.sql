-- escalation_claim_due: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT e.pending_id, e.session_id, e.step, e.action FROM clarification_escalations e
        WHERE e.due_at <= clock_timestamp()
          AND NOT EXISTS (SELECT 1 FROM clarification_escalations earlier WHERE earlier.pending_id = e.pending_id AND earlier.step < e.step)
        ORDER BY e.due_at LIMIT 1 FOR UPDATE OF e SKIP LOCKED
