import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `work` in one transaction at PostgreSQL's default isolation (READ COMMITTED); everything it
 * does commits or rolls back together. No isolation level is passed, so no separate SET TRANSACTION
 * statement is sent.
 */
export function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return dataSource.transaction(work);
}
