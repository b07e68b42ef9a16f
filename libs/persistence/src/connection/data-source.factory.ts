import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '#common';
import { MIGRATIONS } from '../../../../migrations/index.js';
import type { DatabaseReachability } from './database-reachability.js';
import { sendUnnamed } from '../query/named-statement.js';

export interface PoolOptions {
  poolSize: number;
  connectTimeoutMs: number;
  /** Bound on waiting for a free pooled connection (a burst), separate from opening one. */
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /**
   * False behind a transaction pooler (PgBouncer): statements are sent unnamed (NamedStatement), and
   * the connections carry no session settings at start-up — the server-side bounds then come from the
   * role's own settings (docs/operations.md, "Behind PgBouncer"); the client-side bound stays.
   */
  preparedStatements: boolean;
}

export const DEFAULT_POOL_OPTIONS: PoolOptions = {
  poolSize: 20,
  connectTimeoutMs: 3_000,
  acquireTimeoutMs: 10_000,
  statementTimeoutMs: 15_000,
  idleInTransactionTimeoutMs: 15_000,
  preparedStatements: true,
};

/**
 * The pg settings every connection of the process uses: bounded connect, bounded statements (on the
 * server, and on the client for a server that stopped answering), idle transactions ended by the
 * server, TCP keep-alive so a vanished peer is noticed. The server-side bounds are start-up parameters,
 * which a transaction pooler refuses: without prepared statements (behind one) they are left out.
 */
export function connectionSettings(options: PoolOptions) {
  const bounded = options.statementTimeoutMs > 0;
  return {
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(options.preparedStatements
      ? { statement_timeout: options.statementTimeoutMs, idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs }
      : {}),
    query_timeout: bounded ? options.statementTimeoutMs + 1_000 : undefined,
    keepAlive: true,
    application_name: 'parley',
  };
}

/** "Too many connections": the server answered, so it is a burst, not an unreachable database. */
const TOO_MANY_CONNECTIONS = '53300';

type ConnectCallback = (error: Error | null) => void;
type PoolConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * pg's pool has one `connectionTimeoutMillis` for two waits: for a free client when all are in use, and
 * for opening a new one. The pool gets the acquire bound, and each client it opens carries the connect
 * bound itself (pg's Client enforces its own `connectionTimeoutMillis`), so a burst may queue longer
 * than a dead database takes to be noticed. A connection that cannot be opened because the database
 * does not answer marks it unreachable at once, ahead of the listener's probe.
 */
function clientConnectingWithin(connectTimeoutMs: number, reachability: DatabaseReachability | undefined): typeof pg.Client {
  const failed = (error: unknown) => {
    if (reachability && isDatabaseUnavailable(error) && (error as { code?: unknown }).code !== TOO_MANY_CONNECTIONS) reachability.markUnreachable(error);
  };
  return class BoundedConnectClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: connectTimeoutMs });
      // A server that ends a connection (a failover, a terminated backend) makes the client emit `error`.
      // pg-pool listens only while the client is idle in the pool, and a checked-out client's holder only
      // while it runs a statement: in between, an unheard `error` event would end the process. The
      // client is unusable afterwards either way; the next statement on it fails and is handled there.
      this.on('error', () => undefined);
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | undefined {
      if (callback === undefined) {
        return super.connect().catch((error: unknown) => {
          failed(error);
          throw error;
        });
      }
      // pg-pool opens its clients with the callback form.
      super.connect((error: Error | null) => {
        if (error) failed(error);
        (callback as ConnectCallback)(error);
      });
      return undefined;
    }
  };
}

/** Closes the socket at once: ending a connection politely waits for a frozen server to acknowledge it. */
function giveUp(client: pg.PoolClient): void {
  (client as unknown as pg.Client).connection.stream.destroy();
}

/** pg's own state of a client (no public interface: pg-pool reads `_queryable` the same way). */
interface ClientState {
  _getActiveQuery(): unknown;
  _queryable: boolean;
}

/**
 * Whether a statement is still running on a client handed back to the pool: its holder stopped waiting
 * (the client-side read timeout). pg keeps that statement as the connection's active one until the
 * server answers, so every statement a later holder sends would queue behind it.
 */
function statementInFlight(client: pg.PoolClient): boolean {
  const active = (client as unknown as ClientState)._getActiveQuery();
  return active !== null && active !== undefined;
}

/**
 * The pool of a process that knows when its database is unreachable (DatabaseReachability). Meanwhile
 * it refuses connections at once with DatabaseUnavailableError — before any statement, so nothing of
 * a refused request has begun — instead of handing out idle connections that a hung server would
 * leave waiting for the statement bound. Going unreachable closes the idle connections, and every
 * connection released while unreachable; a statement running on a checked-out connection keeps its
 * own bounds. Reachable again, the pool opens fresh connections (each within the connect bound).
 */
function poolGatedBy(reachability: DatabaseReachability): typeof pg.Pool {
  return class GatedPool extends pg.Pool {
    private readonly idle = new Set<pg.PoolClient>();

    constructor(config?: pg.PoolConfig) {
      super(config);
      this.on('acquire', (client) => this.idle.delete(client));
      this.on('remove', (client) => this.idle.delete(client));
      this.on('release', (_error, client) => {
        if (statementInFlight(client)) {
          // pg-pool reads this right after the event and removes the client instead of pooling it.
          (client as unknown as ClientState)._queryable = false;
          giveUp(client);
        } else if (reachability.isReachable) this.idle.add(client);
        else giveUp(client);
      });
      reachability.onUnreachable(() => {
        for (const client of this.idle) giveUp(client);
        this.idle.clear();
      });
    }

    override connect(): Promise<pg.PoolClient>;
    override connect(callback: PoolConnectCallback): void;
    override connect(callback?: PoolConnectCallback): Promise<pg.PoolClient> | undefined {
      if (!reachability.isReachable) {
        const refused = new DatabaseUnavailableError();
        if (callback === undefined) return Promise.reject(refused);
        process.nextTick(() => callback(refused, undefined, () => undefined));
        return undefined;
      }
      if (callback === undefined) return super.connect();
      super.connect(callback);
      return undefined;
    }
  };
}

export interface SidePoolOptions {
  /** Who the connections are in pg_stat_activity (never `parley`: that name is the DataSource's pool). */
  applicationName: string;
  poolSize: number;
  connectTimeoutMs: number;
  acquireTimeoutMs: number;
  /** Bound on one statement, on the server and (the same) on the client. */
  statementTimeoutMs: number;
  /** Session settings sent at connect (libpq `options`, e.g. `-c synchronous_commit=off`). */
  sessionOptions?: string;
}

/**
 * A small pool of its own beside the DataSource's, gated by the same reachability (it fails fast while
 * the database is known to be unreachable, and a connection it cannot open marks it so), for work
 * that must neither queue behind requests for the DataSource's connections nor share their bounds.
 * Errors of idle connections (a database that went away) go to `onIdleError` instead of crashing the process.
 */
export function createSidePool(url: string, reachability: DatabaseReachability, options: SidePoolOptions, onIdleError: (error: Error) => void): pg.Pool {
  const GatedPool = poolGatedBy(reachability);
  const pool = new GatedPool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: options.acquireTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs,
    idle_in_transaction_session_timeout: options.statementTimeoutMs,
    keepAlive: true,
    application_name: options.applicationName,
    ...(options.sessionOptions ? { options: options.sessionOptions } : {}),
    Client: clientConnectingWithin(options.connectTimeoutMs, reachability),
  });
  pool.on('error', (error: Error) => {
    reachability.connectionLost(error);
    onIdleError(error);
  });
  return pool;
}

/** With `reachability`, the pool fails fast while the database is known to be unreachable (poolGatedBy). */
export function createDataSource(url: string, options: PoolOptions = DEFAULT_POOL_OPTIONS, reachability?: DatabaseReachability): DataSource {
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    // TypeORM takes its pg module from `driver`: the same module, with the gated pool.
    ...(reachability ? { driver: Object.create(pg, { Pool: { value: poolGatedBy(reachability) } }) as typeof pg } : {}),
    synchronize: false,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    extra: {
      max: options.poolSize,
      ...connectionSettings(options),
      connectionTimeoutMillis: options.acquireTimeoutMs,
      Client: clientConnectingWithin(options.connectTimeoutMs, reachability),
    },
    logging: false,
    // An idle pooled connection the database ended (TypeORM's default only logs it, through a logger that is off).
    ...(reachability ? { poolErrorHandler: (error: unknown) => reachability.connectionLost(error) } : {}),
  });
  if (!options.preparedStatements) sendUnnamed(dataSource);
  return dataSource;
}
