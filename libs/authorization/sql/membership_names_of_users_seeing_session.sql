-- membership_names_of_users_seeing_session: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
--   $2 user_ids
SELECT u.id, u.name FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id
         JOIN users u ON u.id = ANY($2::text[])
        WHERE s.id = $1 AND (t.id IS NOT NULL AND t.id <> '' AND (t.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id) OR EXISTS (SELECT 1 FROM workspaces access_w WHERE access_w.id = t.workspace_id AND access_w.owner_id IN ('', u.id))
    OR EXISTS (SELECT 1 FROM workspace_members access_m WHERE access_m.workspace_id = t.workspace_id AND access_m.user_id = u.id)))
