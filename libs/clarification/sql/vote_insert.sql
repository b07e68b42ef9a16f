-- vote_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 voter
--   $3 attempt_id
--   $4 caller_kind
--   $5 user_id
--   $6 surface
--   $7 rejected
--   $8 reject_reason
--   $9 answers
WITH cast_vote AS (
     INSERT INTO clarification_votes (pending_id, voter, attempt_id, caller_kind, caller_user_id, caller_name, surface, rejected, reject_reason, answers, at)
     SELECT $1, $2, $3, $4, $5::text, (SELECT u.name FROM users u WHERE u.id = $5::text), $6, $7, $8, $9::jsonb, statement_timestamp()
     RETURNING pending_id)
   SELECT pg_notify('parley_bundle', json_build_object('pending_id', source.pending_id, 'kind', 'voted')::text)
    FROM (SELECT pending_id FROM cast_vote) source
