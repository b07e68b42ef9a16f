-- delivery_ownership_take_over: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 from
--   $3 to
UPDATE task_session_messages m SET metadata = m.metadata || jsonb_build_object('delivery_owner', $3::text)
        WHERE m.metadata->>'pending_id' = $1 AND m.metadata->>'response_delivery_pending' = 'true'
          AND m.metadata->>'delivery_owner' IS NOT DISTINCT FROM $2
        RETURNING m.id
