-- delivery_ownership_resume_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 message_id
--   $2 session_id
--   $3 session_task_id
--   $4 turn_id
--   $5 content
--   $6 metadata
INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
         VALUES ($1, $2, $3, $4, 'system', 'resume_prompt', $5, $6::jsonb)
