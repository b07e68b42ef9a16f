import type pg from 'pg';
import { DataSource } from 'typeorm';
import type { TestApp } from './app.js';

/**
 * Statements the process sends on its own (the event feed's poll, lease heartbeats, sweeps, presence,
 * the deadline sweep, the audit trail's writes, the webhook dispatcher).
 */
const BACKGROUND =
  /question_events|parley_processes|clarification_waiters|response_delivery_pending' = 'true' AND m\.type|clarification_deadlines WHERE due_at|INSERT INTO clarification_audit|DELETE FROM clarification_audit|webhook_deliveries/;

export interface CapturedStatements<T> {
  result: T;
  /** Every statement sent on a pooled connection, in order (BEGIN and COMMIT included). */
  pool: string[];
  /** Every statement TypeORM logged (what went through its query runners). */
  logger: string[];
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
  let capturing = false;
  const wrapped = new WeakSet<object>();
  const onAcquire = (client: pg.PoolClient) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
      if (capturing && !BACKGROUND.test(text)) viaPool.push(text);
      return original(...args);
    };
  };
  pool.on('acquire', onAcquire);
  const logger = dataSource.logger;
  const originalLogQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, runner) => {
    if (capturing && !BACKGROUND.test(query)) viaLogger.push(query);
    return originalLogQuery(query, parameters, runner);
  };
  return {
    async during<T>(action: () => Promise<T>): Promise<CapturedStatements<T>> {
      viaPool.length = 0;
      viaLogger.length = 0;
      capturing = true;
      try {
        const result = await action();
        return { result, pool: [...viaPool], logger: [...viaLogger] };
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
