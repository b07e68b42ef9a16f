import pg from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../../migrations/index.js';

export interface PoolOptions {
  poolSize: number;
  connectTimeoutMs: number;
  /** Bound on waiting for a free pooled connection (a burst), separate from opening one. */
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_POOL_OPTIONS: PoolOptions = {
  poolSize: 20,
  connectTimeoutMs: 3_000,
  acquireTimeoutMs: 10_000,
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

/**
 * pg's pool has one `connectionTimeoutMillis` for two waits: for a free client when all are in use, and
 * for opening a new one. The pool gets the acquire bound, and each client it opens carries the connect
 * bound itself (pg's Client enforces its own `connectionTimeoutMillis`), so a burst may queue longer
 * than a dead database takes to be noticed.
 */
function clientConnectingWithin(connectTimeoutMs: number): typeof pg.Client {
  return class BoundedConnectClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: connectTimeoutMs });
    }
  };
}

export function createDataSource(url: string, options: PoolOptions = DEFAULT_POOL_OPTIONS): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    synchronize: false,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    extra: {
      max: options.poolSize,
      ...connectionSettings(options),
      connectionTimeoutMillis: options.acquireTimeoutMs,
      Client: clientConnectingWithin(options.connectTimeoutMs),
    },
    logging: false,
  });
}
