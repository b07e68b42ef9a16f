import pg from 'pg';
import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';

/** Where a repository runs SQL: the pool, or the manager of an open transaction. */
export type SqlExecutor = DataSource | EntityManager;
/** Where a read may also run: a connection the process keeps for itself (DatabaseListener.connection). */
export type ReadExecutor = SqlExecutor | pg.Client;

async function runStructured<T>(runner: QueryRunner, sql: string, parameters: unknown[]): Promise<T[]> {
  const result = await runner.query(sql, parameters, true);
  return (result.records ?? []) as T[];
}

/**
 * The rows a statement's text returns, whatever its command. TypeORM's plain `query()` returns
 * `[rows, count]` for UPDATE/DELETE … RETURNING, so statements read rows through this instead. Only
 * NamedStatement calls it: a repository runs a declared statement, never a text of its own.
 */
export async function queryText<T>(executor: ReadExecutor, sql: string, parameters: unknown[]): Promise<T[]> {
  if (executor instanceof pg.Client) return (await executor.query<T & pg.QueryResultRow>(sql, parameters)).rows;
  if (!(executor instanceof DataSource) && executor.queryRunner) {
    return runStructured<T>(executor.queryRunner, sql, parameters);
  }
  const dataSource = executor instanceof DataSource ? executor : executor.connection;
  const runner = dataSource.createQueryRunner();
  try {
    return await runStructured<T>(runner, sql, parameters);
  } finally {
    await runner.release();
  }
}
