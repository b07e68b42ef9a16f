-- pending_list_active_count: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT count(*)::text AS count FROM clarification_bundles WHERE active
