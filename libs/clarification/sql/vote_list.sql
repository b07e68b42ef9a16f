-- vote_list: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
SELECT v.voter, v.seq::text AS seq, v.caller_kind, v.caller_user_id, v.caller_name, v.surface, v.rejected, v.reject_reason, v.answers, v.at FROM clarification_votes v WHERE v.pending_id = $1 ORDER BY v.seq
