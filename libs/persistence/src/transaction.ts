import type { DataSource, EntityManager } from 'typeorm';

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

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * Whether a failed COMMIT leaves its outcome unknown: the server did not refuse it with an error of
 * the transaction (a serialization failure, a deferred constraint: those roll back), the connection
 * failed instead — no SQLSTATE (socket closed, reset, read timeout), class 08 (connection exception)
 * or class 57 (operator intervention: terminated, shutting down, cancelled).
 */
function outcomeUnknown(error: unknown): boolean {
  const { code, driverError } = (error ?? {}) as { code?: unknown; driverError?: { code?: unknown } };
  const sqlState = typeof code === 'string' ? code : driverError?.code;
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
      await runner.commitTransaction();
    } catch (error) {
      throw outcomeUnknown(error) ? new CommitOutcomeUnknownError(error) : error;
    }
    return result;
  } catch (error) {
    // The original error is thrown even if the rollback fails (a dead connection: nothing to roll back here).
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
