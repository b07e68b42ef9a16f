import { Logger } from '@nestjs/common';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, DEFAULT_POOL_OPTIONS, type PoolOptions } from './data-source.factory.js';
import { DatabaseReachability } from './database-reachability.js';
import { EmbeddedDatabase } from './embedded-database.js';

export interface DatabaseOptions extends Partial<PoolOptions> {
  databaseUrl: string | undefined;
  /** A direct connection for session work (LISTEN, migrations) when DATABASE_URL is a transaction pooler; unset ⇒ databaseUrl. */
  listenUrl?: string | undefined;
  dataDir: string;
}

/** Serializes migrations across every process starting on the same database (replicas, CLI). */
const MIGRATION_LOCK = 0x50_41_52_4c;

/**
 * Runs the pending migrations while holding a session-level advisory lock on a dedicated connection
 * (no statement timeout: the lock waits for another process's migrations), so concurrent start-ups on
 * an empty database apply them once instead of racing on the catalog. `url` is a direct connection:
 * a transaction pooler would hand the lock's session to others between statements.
 */
async function migrateExclusively(url: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString: url, application_name: 'parley-migrations' });
  // Ended by the database while idle (between its statements): a query of its own reports that, not the process.
  lock.on('error', () => undefined);
  const migrations = createDataSource(url, { ...DEFAULT_POOL_OPTIONS, poolSize: 2, statementTimeoutMs: 0, idleInTransactionTimeoutMs: 0 });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrations.initialize();
    const applied = await migrations.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    if (migrations.isInitialized) await migrations.destroy();
    await lock.end().catch(() => undefined);
  }
}

/** The database connection of one process: PostgreSQL at DATABASE_URL, or the embedded one. */
export class Database {
  private constructor(
    readonly dataSource: DataSource,
    readonly url: string,
    /** A direct connection to PostgreSQL, never through a transaction pooler: for what needs a session (LISTEN, session settings). */
    readonly directUrl: string,
    readonly poolOptions: PoolOptions,
    /** Whether the database is known to be reachable: the pool of `dataSource` fails fast while it is not. */
    readonly reachability: DatabaseReachability,
    private readonly embedded: EmbeddedDatabase | undefined,
  ) {}

  static async open(options: DatabaseOptions): Promise<Database> {
    const logger = new Logger('Database');
    const embedded = options.databaseUrl
      ? undefined
      : await EmbeddedDatabase.start(options.dataDir, (message) => logger.debug(message.trim()));
    const url = options.databaseUrl ?? (embedded as EmbeddedDatabase).url;
    const directUrl = options.databaseUrl === undefined ? url : (options.listenUrl ?? url);
    const poolOptions: PoolOptions = {
      poolSize: options.poolSize ?? DEFAULT_POOL_OPTIONS.poolSize,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_POOL_OPTIONS.connectTimeoutMs,
      acquireTimeoutMs: options.acquireTimeoutMs ?? DEFAULT_POOL_OPTIONS.acquireTimeoutMs,
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_POOL_OPTIONS.statementTimeoutMs,
      idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs ?? DEFAULT_POOL_OPTIONS.idleInTransactionTimeoutMs,
      preparedStatements: options.preparedStatements ?? DEFAULT_POOL_OPTIONS.preparedStatements,
    };
    const reachability = new DatabaseReachability();
    const dataSource = createDataSource(url, poolOptions, reachability);
    try {
      const applied = await migrateExclusively(directUrl);
      if (applied.length > 0) logger.log(`applied migrations: ${applied.join(', ')}`);
      await dataSource.initialize();
    } catch (error) {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
      throw error;
    }
    logger.log(embedded ? `embedded PostgreSQL under ${options.dataDir}` : 'PostgreSQL at DATABASE_URL');
    return new Database(dataSource, url, directUrl, poolOptions, reachability, embedded);
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }
}
