-- escalation_any_due: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT EXISTS (SELECT 1 FROM clarification_escalations WHERE due_at <= clock_timestamp()) AS due
