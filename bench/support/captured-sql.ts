import type { DataSource, QueryRunner } from 'typeorm';
import { PendingListRepository, type PendingListQuery } from '#clarification/testing';

export interface Statement {
  sql: string;
  parameters: unknown[];
  /** The prepared statement's name, when the app sent it named (`runNamed`). */
  name?: string;
}

/**
 * A view of the application's DataSource whose query runners record each statement instead of
 * running it (and answer with no rows), whether sent through the runner or, named, on its client. A PendingListRepository built on it produces exactly the SQL
 * and parameters the live repository sends — whichever way it builds them (query builder or raw) —
 * without a hand-written copy that could drift from it.
 */
function recordingDataSource(dataSource: DataSource, statements: Statement[]): DataSource {
  const recording = Object.create(dataSource) as DataSource;
  recording.createQueryRunner = (): QueryRunner => {
    const runner = dataSource.createQueryRunner();
    runner.query = ((sql: string, parameters?: unknown[], structured?: boolean) => {
      statements.push({ sql, parameters: parameters ?? [] });
      return Promise.resolve(structured ? { records: [], raw: [] } : []);
    }) as QueryRunner['query'];
    // A named statement (`runNamed`) goes to the runner's pg client instead.
    const recordingClient = {
      query: (config: { text: string; values?: unknown[]; name?: string }) => {
        statements.push({ sql: config.text, parameters: config.values ?? [], ...(config.name ? { name: config.name } : {}) });
        return Promise.resolve({ rows: [], rowCount: 0 });
      },
    };
    runner.connect = (() => Promise.resolve(recordingClient)) as QueryRunner['connect'];
    return runner;
  };
  return recording;
}

/** The statement PendingListRepository.listHeads sends for `query`. */
export async function listHeadsStatement(dataSource: DataSource, query: PendingListQuery): Promise<Statement> {
  const statements: Statement[] = [];
  await new PendingListRepository(recordingDataSource(dataSource, statements)).listHeads(query);
  if (statements.length !== 1) throw new Error(`listHeads sent ${statements.length} statements, expected 1`);
  return statements[0];
}

/** The statement PendingListRepository.rowsOf sends; its one parameter is the pending_id array. */
export async function rowsOfStatement(dataSource: DataSource): Promise<Statement> {
  const statements: Statement[] = [];
  await new PendingListRepository(recordingDataSource(dataSource, statements)).rowsOf(['placeholder']);
  if (statements.length !== 1) throw new Error(`rowsOf sent ${statements.length} statements, expected 1`);
  const statement = statements[0];
  if (statement.parameters.length !== 1) throw new Error('rowsOf is expected to take exactly the pending_id array');
  return statement;
}
