-- audit_list: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 at
--   $3 id
--   $4 limit
SELECT id::text AS id, pending_id, outcome, surface, caller_kind, caller_user_id, caller_name, rejected, reject_reason, detail, at,
              to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position
         FROM clarification_audit
        WHERE pending_id = $1 AND ($2::timestamptz IS NULL OR (at, id) > ($2::timestamptz, $3::bigint))
        ORDER BY at, id LIMIT $4
