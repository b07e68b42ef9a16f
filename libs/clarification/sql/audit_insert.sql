-- audit_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 entries
INSERT INTO clarification_audit (attempt_id, pending_id, outcome, surface, caller_kind, caller_user_id, caller_name, rejected, reject_reason, detail, at)
       SELECT e.attempt_id, e.pending_id, e.outcome, e.surface, e.caller_kind, e.caller_user_id,
              (SELECT u.name FROM users u WHERE u.id = e.caller_user_id), e.rejected, e.reject_reason, e.detail, e.at
         FROM jsonb_to_recordset($1::jsonb) AS e(attempt_id text, pending_id text, outcome text, surface text, caller_kind text, caller_user_id text,
                                                 rejected boolean, reject_reason text, detail text, at timestamptz)
        WHERE e.outcome <> 'not_found' OR EXISTS (SELECT 1 FROM clarification_bundles b WHERE b.pending_id = e.pending_id)
       ON CONFLICT (attempt_id) DO UPDATE SET outcome = EXCLUDED.outcome, detail = EXCLUDED.detail
       RETURNING id
