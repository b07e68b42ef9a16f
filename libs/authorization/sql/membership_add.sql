-- membership_add: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
--   $2 user_id
WITH inserted AS (
         INSERT INTO workspace_members (workspace_id, user_id) VALUES ($1, $2)
         ON CONFLICT (workspace_id, user_id) DO NOTHING RETURNING workspace_id, user_id, created_at)
       SELECT m.workspace_id, m.user_id, u.name, m.created_at, true AS added FROM inserted m JOIN users u ON u.id = m.user_id
       UNION ALL
       SELECT m.workspace_id, m.user_id, u.name, m.created_at, false FROM workspace_members m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = $1 AND m.user_id = $2 AND NOT EXISTS (SELECT 1 FROM inserted)
