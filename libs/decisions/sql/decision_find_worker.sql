-- decision_find_worker: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 worker_id
SELECT ws.id, ws.task_id, ws.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED') AS open FROM task_sessions ws WHERE ws.id = $1
