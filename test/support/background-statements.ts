/**
 * Statements the process sends on its own: the event feed's reads, lease heartbeats, sweeps, retention;
 * the deadline and escalation sweeps, the audit trail's batched writes of non-winning attempts and the webhook outbox's
 * dispatcher. Shared by the tests' statement counter and the benchmarks' capture.
 */
const BACKGROUND = [
  /^\s*WITH horizon AS \(SELECT pg_snapshot_xmin/,
  /^\s*SELECT COALESCE\(\(SELECT MAX\(id\) FROM question_events/,
  /^\s*WITH gone AS \(DELETE FROM question_events/,
  /^\s*INSERT INTO parley_processes/,
  /^\s*DELETE FROM clarification_waiters w WHERE NOT/,
  /^\s*SELECT DISTINCT m\.metadata->>'pending_id' AS pending_id, m\.task_session_id AS session_id/,
  /command_receipts|decision_claims/,
  /^\s*SELECT EXISTS \(SELECT 1 FROM clarification_deadlines WHERE due_at/,
  /^\s*SELECT EXISTS \(SELECT 1 FROM clarification_escalations WHERE due_at/,
  /^\s*INSERT INTO clarification_audit \(attempt_id[^]*jsonb_to_recordset/,
  /^\s*WITH gone AS \(DELETE FROM clarification_audit/,
  /^\s*WITH picked AS \(\s*SELECT d\.id FROM webhook_deliveries/,
  /^\s*DELETE FROM webhook_deliveries WHERE finished_at/,
];
export const isBackground = (text: string): boolean => BACKGROUND.some((pattern) => pattern.test(text));
