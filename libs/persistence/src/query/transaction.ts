import type pg from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/**
 * A COMMIT was sent and its result never arrived (the connection broke, the server was terminated or
 * stopped answering): the transaction may have committed or not. Only a later read can tell, so a
 * caller must report the outcome as unknown — never as a success, never as a failure. The original
 * error is the `cause` (so it still counts as the database being unavailable).
 */
export class CommitOutcomeUnknownError extends Error {
  constructor(cause: unknown) {
    super('the COMMIT was sent but its result never arrived: whether it committed is not known', { cause });
    this.name = 'CommitOutcomeUnknownError';
  }
}

/**
 * The transaction's connection failed between two of its statements: TypeORM released the query runner
 * when the connection emitted its error, so the next statement found it released. Nothing committed.
 */
export class TransactionConnectionLostError extends Error {
  constructor(cause: unknown) {
    super("connection terminated: the transaction's connection failed between its statements", { cause });
    this.name = 'TransactionConnectionLostError';
  }
}

const RELEASED_RUNNER_ERRORS = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

/** Only TypeORM releases the runner while `work` runs (inTransaction releases it after): on a connection error. */
function releasedByConnectionError(error: unknown): boolean {
  return error instanceof Error && RELEASED_RUNNER_ERRORS.has(error.name);
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * A COMMIT that waited for a synchronous standby and whose wait was cancelled (pg_cancel_backend, an
 * operator's tool) returns success with a WARNING: the transaction committed on this server only, and
 * a failover may lose it. It is not acknowledged as a success: its outcome counts as unknown.
 */
class CommitNotReplicatedError extends Error {
  constructor(readonly notice: string) {
    super(`the COMMIT returned with a warning (${notice}): it may not have reached the synchronous standby`);
    this.name = 'CommitNotReplicatedError';
  }
}

/** The pg client TypeORM's PostgreSQL query runner holds while its transaction is open. */
function connectionOf(runner: QueryRunner): pg.ClientBase | undefined {
  return (runner as QueryRunner & { databaseConnection?: pg.ClientBase }).databaseConnection;
}

/** COMMIT, failing with CommitNotReplicatedError when the server sends a WARNING while it runs. */
async function commitReplicated(runner: QueryRunner): Promise<void> {
  const connection = connectionOf(runner);
  const warnings: string[] = [];
  const onNotice = (notice: { severity?: string; message?: string; code?: string }) => {
    if (notice.severity === 'WARNING') warnings.push(notice.message ?? notice.code ?? 'WARNING');
  };
  connection?.on('notice', onNotice);
  try {
    await runner.commitTransaction();
  } finally {
    connection?.off('notice', onNotice);
  }
  if (warnings.length > 0) throw new CommitNotReplicatedError(warnings.join('; '));
}

/**
 * Whether a failed COMMIT leaves its outcome unknown: the server did not refuse it with an error of
 * the transaction (a serialization failure, a deferred constraint: those roll back), the connection
 * failed instead — no SQLSTATE (socket closed, reset, read timeout), class 08 (connection exception)
 * or class 57 (operator intervention: terminated, shutting down, cancelled) — or it succeeded with a
 * warning that it may not be on the synchronous standby.
 */
function outcomeUnknown(error: unknown): boolean {
  const { code, driverError } = (error ?? {}) as { code?: unknown; driverError?: { code?: unknown } };
  const sqlState = typeof code === 'string' ? code : driverError?.code;
  if (error instanceof CommitNotReplicatedError) return true;
  if (typeof sqlState !== 'string' || !SQLSTATE.test(sqlState)) return true;
  return sqlState.startsWith('08') || sqlState.startsWith('57');
}

/**
 * Runs `work` in one transaction at PostgreSQL's default isolation (READ COMMITTED); everything it
 * does commits or rolls back together. No isolation level is passed, so no separate SET TRANSACTION
 * statement is sent (the statements are TypeORM's `transaction()`'s: START TRANSACTION, the work,
 * COMMIT). A COMMIT whose result never arrived throws CommitOutcomeUnknownError.
 */
export async function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    const result = await work(runner.manager);
    try {
      await commitReplicated(runner);
    } catch (error) {
      throw outcomeUnknown(error) ? new CommitOutcomeUnknownError(error) : error;
    }
    return result;
  } catch (error) {
    // The original error is thrown even if the rollback fails (a dead connection: nothing to roll back here).
    // After an unknown COMMIT outcome there is nothing to roll back: a ROLLBACK would queue behind the
    // COMMIT still in flight; the pool discards that connection on release instead.
    if (releasedByConnectionError(error)) throw new TransactionConnectionLostError(error);
    if (runner.isTransactionActive && !(error instanceof CommitOutcomeUnknownError)) await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
