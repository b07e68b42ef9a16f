-- membership_remove: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
--   $2 user_id
WITH gone AS (DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2 RETURNING workspace_id, user_id),
       told AS (SELECT pg_notify('parley_revoked', json_build_object('membership', json_build_object('workspace_id', workspace_id, 'user_id', user_id))::text) FROM gone)
       SELECT EXISTS (SELECT 1 FROM gone) AS removed, (SELECT COUNT(*) FROM told) AS told
