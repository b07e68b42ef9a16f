-- waiter_presence_forget_dead: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
DELETE FROM clarification_waiters w WHERE NOT EXISTS (SELECT 1 FROM parley_processes live_p WHERE live_p.id = w.process_id AND live_p.expires_at > clock_timestamp())
