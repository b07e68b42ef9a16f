-- webhook_delivery_prune: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 older_than
DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < $1
