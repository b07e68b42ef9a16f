import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DataSource, type QueryRunner } from 'typeorm';
import type { SqlExecutor } from './query-rows.js';

/** PostgreSQL truncates identifiers to 63 bytes; a label plus `_` and the 16-hex digest stays under it. */
const MAX_LABEL = 40;

/** Each statement text's name, computed once per text (the texts are a fixed, finite set). */
const names = new Map<string, string>();

/**
 * The prepared statement's name for `text`: the caller's label plus a digest of the exact text, so two
 * texts can never share a name on a connection (pg refuses that) — also when one repository method
 * builds a few variants of its statement under one label.
 */
export function statementName(label: string, text: string): string {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (!/^[a-z][a-z0-9_]*$/.test(label) || label.length > MAX_LABEL) throw new Error(`invalid statement label: ${label}`);
  const name = `${label}_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  names.set(text, name);
  return name;
}

async function runOn<T>(runner: QueryRunner, query: pg.QueryConfig): Promise<T[]> {
  const client = (await runner.connect()) as pg.PoolClient;
  runner.connection.logger.logQuery(query.text, query.values, runner);
  const result = await client.query<T & pg.QueryResultRow>(query);
  return result.rows;
}

/**
 * The rows of a hot statement sent as a named prepared statement: PostgreSQL parses and plans it once
 * per connection (a generic plan after its five custom ones) instead of on every call, as TypeORM's
 * unnamed `query()` makes it. Runs on the open transaction's connection, or on a pooled one; pg
 * prepares it again by itself on a new connection (after an outage, for instance).
 */
export async function runNamed<T>(executor: SqlExecutor, label: string, text: string, values: unknown[]): Promise<T[]> {
  const query: pg.QueryConfig = { name: statementName(label, text), text, values };
  if (!(executor instanceof DataSource) && executor.queryRunner) return runOn<T>(executor.queryRunner, query);
  const dataSource = executor instanceof DataSource ? executor : executor.connection;
  const runner = dataSource.createQueryRunner();
  try {
    return await runOn<T>(runner, query);
  } finally {
    await runner.release();
  }
}
