-- webhook_delivery_claim_due: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 owner
--   $2 limit
--   $3 lease_ms
WITH picked AS (
         SELECT d.id FROM webhook_deliveries d
          WHERE ((d.state = 'pending' AND d.next_attempt_at <= clock_timestamp())
                 OR (d.state = 'sending' AND d.lease_expires_at < clock_timestamp()))
            AND EXISTS (SELECT 1 FROM webhook_subscriptions active_s WHERE active_s.id = d.subscription_id AND active_s.status = 'active')
          ORDER BY d.next_attempt_at LIMIT $2
          FOR UPDATE OF d SKIP LOCKED),
       claimed AS (
         UPDATE webhook_deliveries d
            SET state = 'sending', lease_owner = $1, attempts = d.attempts + 1,
                lease_expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
           FROM picked WHERE d.id = picked.id
         RETURNING d.*)
       SELECT c.id, c.subscription_id, c.event_id::text AS event_id, c.event_type, c.pending_id, c.session_id, c.task_id, c.workspace_id,
              c.payload, c.occurred_at, c.attempts, s.url, s.secret, s.format,
              COALESCE(t.title, '') AS task_title, COALESCE(w.name, '') AS workspace_name,
              COALESCE((SELECT m.content FROM task_session_messages m WHERE m.metadata->>'pending_id' = c.pending_id AND m.type = 'clarification_request'
                         ORDER BY m.created_at, m.id LIMIT 1), '') AS first_prompt,
              (SELECT COUNT(*) FROM task_session_messages m WHERE m.metadata->>'pending_id' = c.pending_id AND m.type = 'clarification_request')::int AS question_count
         FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id
         LEFT JOIN tasks t ON t.id = c.task_id LEFT JOIN workspaces w ON w.id = c.workspace_id
