import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from './server-process.js';

/** Debian's package (`apt-get install pgbouncer`; .ci/run installs it). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';
const START_TIMEOUT_MS = 10_000;

export interface PgBouncer {
  /** `directUrl` with pgbouncer's address: the same user, password and database, through the pooler. */
  url: string;
  /** pgbouncer's admin console (SHOW CLIENTS, SHOW STATS: simple-protocol statements only). */
  admin(statement: string): Promise<Array<Record<string, unknown>>>;
  stop(): Promise<void>;
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function accepting(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!running(child)) throw new Error(`pgbouncer exited (${child.exitCode ?? child.signalCode}): ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await delay(50);
  }
  throw new Error(`pgbouncer did not listen within ${START_TIMEOUT_MS} ms: ${output()}`);
}

/**
 * A real PgBouncer in transaction pooling in front of the PostgreSQL server of `directUrl`, on a free
 * loopback port, with its defaults for everything the tests rely on: no `ignore_startup_parameters`
 * (a start-up `statement_timeout` is refused) and no prepared statements kept across transactions.
 * Clients are trusted; pgbouncer logs in to PostgreSQL with the URL's password (its auth file).
 */
export async function startPgBouncer(directUrl: string): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install -y pgbouncer (.ci/run does)`);
  const direct = new URL(directUrl);
  const user = decodeURIComponent(direct.username);
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'parley-pgbouncer-'));
  // pgbouncer refuses to run as root: it drops to `nobody`, who must read its files.
  const asRoot = userInfo().uid === 0;
  await chmod(dir, 0o755);
  const authFile = path.join(dir, 'users.txt');
  await writeFile(authFile, `"${user}" "${decodeURIComponent(direct.password)}"\n`, { mode: 0o644 });
  const iniFile = path.join(dir, 'pgbouncer.ini');
  await writeFile(
    iniFile,
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${authFile}`,
      'pool_mode = transaction',
      'default_pool_size = 10',
      'max_client_conn = 500',
      `admin_users = ${user}`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  let output = '';
  const child = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), iniFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await accepting(port, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const through = new URL(directUrl);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  const consoleUrl = new URL(through);
  consoleUrl.pathname = '/pgbouncer';
  return {
    url: through.toString(),
    async admin(statement) {
      const client = new pg.Client({ connectionString: consoleUrl.toString() });
      await client.connect();
      try {
        return (await client.query(statement)).rows as Array<Record<string, unknown>>;
      } finally {
        await client.end();
      }
    },
    async stop() {
      // SIGTERM: immediate shutdown (SIGINT would wait for its clients to leave).
      if (running(child)) {
        child.kill('SIGTERM');
        await Promise.race([exited, delay(3_000, undefined, { ref: false })]);
        if (running(child)) child.kill('SIGKILL');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
