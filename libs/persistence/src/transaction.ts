import type { DataSource, EntityManager } from 'typeorm';

/** Runs `work` in one READ COMMITTED transaction; everything it does commits or rolls back together. */
export function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return dataSource.transaction('READ COMMITTED', work);
}
