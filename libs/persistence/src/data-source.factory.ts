import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../../migrations/index.js';

export interface PoolOptions {
  poolSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_POOL_OPTIONS: PoolOptions = {
  poolSize: 20,
  connectTimeoutMs: 3_000,
  statementTimeoutMs: 15_000,
  idleInTransactionTimeoutMs: 15_000,
};

/**
 * The pg settings every connection of the process uses: bounded connect, bounded statements (on the
 * server, and on the client for a server that stopped answering), idle transactions ended by the
 * server, TCP keep-alive so a vanished peer is noticed.
 */
export function connectionSettings(options: PoolOptions) {
  const bounded = options.statementTimeoutMs > 0;
  return {
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    query_timeout: bounded ? options.statementTimeoutMs + 1_000 : undefined,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
    keepAlive: true,
    application_name: 'parley',
  };
}

export function createDataSource(url: string, options: PoolOptions = DEFAULT_POOL_OPTIONS): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    synchronize: false,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    extra: { max: options.poolSize, ...connectionSettings(options) },
    logging: false,
  });
}
