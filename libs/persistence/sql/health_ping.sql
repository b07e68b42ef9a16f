-- health_ping: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT 1
