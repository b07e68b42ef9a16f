-- deadline_claim_due: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT pending_id, session_id FROM clarification_deadlines
        WHERE due_at <= clock_timestamp() ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED
