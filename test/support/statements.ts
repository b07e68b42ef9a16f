import type pg from 'pg';
import { DataSource } from 'typeorm';
import type { TestApp } from './app.js';

/**
 * Statements the process sends on its own: the event feed's reads, lease heartbeats, sweeps, retention;
 * the deadline sweep, the audit trail's batched writes of non-winning attempts and the webhook outbox's
 * dispatcher (issue 15).
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
  /^\s*INSERT INTO clarification_audit \(attempt_id[^]*jsonb_to_recordset/,
  /^\s*WITH gone AS \(DELETE FROM clarification_audit/,
  /^\s*WITH picked AS \(\s*SELECT d\.id FROM webhook_deliveries/,
  /^\s*DELETE FROM webhook_deliveries WHERE finished_at/,
];
const isBackground = (text: string) => BACKGROUND.some((pattern) => pattern.test(text));

export interface CapturedStatements<T> {
  result: T;
  /** Every statement sent on a pooled connection, in order (BEGIN and COMMIT included). */
  pool: string[];
  /** Every statement TypeORM logged (what went through its query runners). */
  logger: string[];
  /** The names of the statements sent as named prepared statements (`runNamed`), in order. */
  named: string[];
}

/**
 * Records the SQL an app sends while an action runs — on the pool's connections and through
 * TypeORM's logger — leaving out the process's own background statements.
 */
export function captureStatements(t: TestApp) {
  const dataSource = t.app.get(DataSource);
  const pool = (dataSource.driver as unknown as { master: pg.Pool }).master;
  const viaPool: string[] = [];
  const viaLogger: string[] = [];
  const named: string[] = [];
  let capturing = false;
  const wrapped = new WeakSet<object>();
  const onAcquire = (client: pg.PoolClient) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
      const name = typeof first === 'string' ? undefined : (first as { name?: string } | undefined)?.name;
      if (capturing && !isBackground(text)) {
        viaPool.push(text);
        if (name) named.push(name);
      }
      return original(...args);
    };
  };
  pool.on('acquire', onAcquire);
  const logger = dataSource.logger;
  const originalLogQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, runner) => {
    if (capturing && !isBackground(query)) viaLogger.push(query);
    return originalLogQuery(query, parameters, runner);
  };
  return {
    async during<T>(action: () => Promise<T>): Promise<CapturedStatements<T>> {
      viaPool.length = 0;
      viaLogger.length = 0;
      named.length = 0;
      capturing = true;
      try {
        const result = await action();
        return { result, pool: [...viaPool], logger: [...viaLogger], named: [...named] };
      } finally {
        capturing = false;
      }
    },
    restore() {
      pool.off('acquire', onAcquire);
      logger.logQuery = originalLogQuery;
    },
  };
}
