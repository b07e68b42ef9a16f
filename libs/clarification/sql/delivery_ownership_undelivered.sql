-- delivery_ownership_undelivered: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 self
SELECT DISTINCT m.metadata->>'pending_id' AS pending_id, m.task_session_id AS session_id, m.metadata->>'delivery_owner' AS owner
         FROM task_session_messages m
        WHERE m.metadata->>'response_delivery_pending' = 'true' AND m.type = 'clarification_request'
          AND (m.metadata->>'delivery_owner' IS NULL OR m.metadata->>'delivery_owner' = $1
               OR NOT EXISTS (SELECT 1 FROM parley_processes live_p WHERE live_p.id = m.metadata->>'delivery_owner' AND live_p.expires_at > clock_timestamp()))
        ORDER BY 1
