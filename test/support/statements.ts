import type pg from 'pg';
import { DataSource } from 'typeorm';
import type { TestApp } from './app.js';
import { isBackground } from './background-statements.js';


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
