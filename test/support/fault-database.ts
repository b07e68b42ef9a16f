import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedDatabase } from '#persistence';
import { eventually } from './eventually.js';
import { isAlive, stablePort, tempDir } from './server-process.js';

/** The application_name of the test's own connections, so they are never counted as the server's. */
export const OBSERVER = 'parley-fault-observer';

/** Connections the servers under test hold, by application_name (`parley`, `parley-listener`), read with `query`. */
export async function serverConnectionsThrough(
  query: <T extends pg.QueryResultRow>(sql: string, parameters: unknown[]) => Promise<T[]>,
): Promise<Record<string, number>> {
  const rows = await query<{ application_name: string; count: number }>(
    `SELECT application_name, count(*)::int AS count FROM pg_stat_activity
     WHERE backend_type = 'client backend' AND application_name LIKE 'parley%' AND application_name <> $1
     GROUP BY application_name`,
    [OBSERVER],
  );
  return Object.fromEntries(rows.map((row) => [row.application_name, row.count]));
}

/**
 * A PostgreSQL cluster owned by one fault test (never the shared server of global-setup.mjs): it can
 * be stopped and started again on the same port, or hung (SIGSTOP) and resumed, while the servers
 * under test keep their DATABASE_URL.
 */
export class FaultDatabase {
  private server: EmbeddedDatabase | undefined;
  private hung: number[] = [];
  readonly log: string[] = [];

  private constructor(
    private readonly dataDir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<FaultDatabase> {
    const database = new FaultDatabase(await tempDir('parley-fault-db-'), await stablePort());
    await database.restart();
    return database;
  }

  get url(): string {
    if (!this.server) throw new Error('the fault database is stopped');
    return this.server.url;
  }

  /** Starts the cluster (again) on its fixed port. */
  async restart(): Promise<void> {
    this.server = await EmbeddedDatabase.start(this.dataDir, (message: string) => this.log.push(message), { port: this.port });
  }

  /** A fast shutdown: every connection is terminated, then the port refuses connections. */
  async stop(): Promise<void> {
    await this.server?.stop();
  }

  /** Freezes the postmaster and every process it forked: connections stay open and nothing answers. */
  async hang(): Promise<void> {
    const postmaster = await this.postmasterPid();
    const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
    // The postmaster first, so it forks nothing new while its children are being stopped.
    this.hung = [postmaster, ...children];
    for (const pid of this.hung) process.kill(pid, 'SIGSTOP');
  }

  /**
   * `kill -9` of the postmaster: no shutdown — each backend ends its connection as it notices the death,
   * and the cluster is started again (on the same port) once those orphans are gone.
   */
  async killAndRestart(): Promise<void> {
    const postmaster = await this.postmasterPid();
    process.kill(postmaster, 'SIGKILL');
    await eventually(() => (isAlive(postmaster) ? undefined : true), 10_000, 'the killed postmaster gone');
    this.server = undefined;
    await eventually(() => this.restart().then(() => true).catch(() => undefined), 30_000, 'the cluster started again after kill -9');
  }

  resume(): void {
    for (const pid of [...this.hung].reverse()) process.kill(pid, 'SIGCONT');
    this.hung = [];
  }

  /** One statement on a connection of its own (the pool of the servers under test is never used). */
  async query<T extends pg.QueryResultRow>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url, application_name: OBSERVER, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      return (await client.query<T>(sql, parameters)).rows;
    } finally {
      await client.end();
    }
  }

  /** Connections the servers under test hold, by application_name (`parley`, `parley-listener`). */
  async serverConnections(): Promise<Record<string, number>> {
    return serverConnectionsThrough((sql, parameters) => this.query(sql, parameters));
  }

  async remove(): Promise<void> {
    this.resume();
    await this.stop();
    // A shutdown checkpoint on a slow disk can outlast stop()'s bound: the WAL directory may still be written for a moment.
    await rm(this.dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 500 });
  }

  private async postmasterPid(): Promise<number> {
    const [pidLine] = (await readFile(path.join(this.dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n');
    return Number(pidLine);
  }
}
