import type pg from 'pg';
import { DataSource } from 'typeorm';
import type { BenchApp } from './app.js';
import { isBackground } from '../../test/support/background-statements.js';
import type { Statement } from './captured-sql.js';


/**
 * Records every statement (text and parameters) the app sends on its pooled connections while
 * `action` runs, leaving out the process's background statements — the app's own SQL, to replay.
 */
export async function captureWithParameters<T>(bench: BenchApp, action: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
  const dataSource = bench.app.get(DataSource);
  const pool = (dataSource.driver as unknown as { master: pg.Pool }).master;
  const statements: Statement[] = [];
  const wrapped: { client: pg.PoolClient; original: pg.PoolClient['query'] }[] = [];
  const wrap = (client: pg.PoolClient) => {
    if (wrapped.some((entry) => entry.client === client)) return;
    const original: pg.PoolClient['query'] = client.query.bind(client);
    wrapped.push({ client, original });
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      const sql = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
      const parameters = Array.isArray(args[1]) ? (args[1] as unknown[]) : ((first as { values?: unknown[] } | undefined)?.values ?? []);
      const name = typeof first === 'string' ? undefined : (first as { name?: string } | undefined)?.name;
      if (!isBackground(sql)) statements.push({ sql, parameters: [...parameters], ...(name ? { name } : {}) });
      return (original as (...a: unknown[]) => unknown).apply(client, args);
    };
  };
  pool.on('acquire', wrap);
  try {
    return { result: await action(), statements };
  } finally {
    pool.off('acquire', wrap);
    for (const { client, original } of wrapped) client.query = original;
  }
}

/** The claim transaction among captured statements: from its BEGIN to its COMMIT, around the session's advisory lock. */
export function claimTransaction(statements: readonly Statement[]): Statement[] {
  const lock = statements.findIndex((statement) => /pg_advisory_xact_lock/.test(statement.sql));
  if (lock < 0) throw new Error('no claim transaction (pg_advisory_xact_lock) among the captured statements');
  let begin = lock;
  while (begin >= 0 && !/^\s*(START TRANSACTION|BEGIN)\b/i.test(statements[begin]?.sql ?? '')) begin--;
  let commit = lock;
  while (commit < statements.length && !/^\s*COMMIT\b/i.test(statements[commit]?.sql ?? '')) commit++;
  if (begin < 0 || commit >= statements.length) throw new Error('the claim transaction has no BEGIN … COMMIT around its lock');
  return statements.slice(begin, commit + 1);
}

/** Rewrites every parameter (strings and JSON text inside them) by replacing each key of `ids` with its value. */
export function substitute(statement: Statement, ids: ReadonlyMap<string, string>): Statement {
  const rewrite = (value: unknown): unknown => {
    if (typeof value !== 'string') return value;
    let text = value;
    for (const [from, to] of ids) text = text.split(from).join(to);
    return text;
  };
  return { ...statement, parameters: statement.parameters.map(rewrite) };
}
