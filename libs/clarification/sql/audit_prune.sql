-- audit_prune: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 older_than
WITH gone AS (DELETE FROM clarification_audit WHERE at < $1 RETURNING 1) SELECT COUNT(*)::text AS count FROM gone
