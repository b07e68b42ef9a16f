import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { MIGRATIONS } from '../migrations/index.js';

/**
 * The real built server (`npm run build` ⇒ dist/apps/server/src/main.js) started as a child process:
 * embedded PostgreSQL when DATABASE_URL is unset, graceful SIGTERM, data kept across restarts,
 * migrations applied once, and configuration errors that stop start-up.
 */

const MAIN = fileURLToPath(new URL('../dist/apps/server/src/main.js', import.meta.url));
const HEALTH_TIMEOUT_MS = 30_000;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Server {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<Exit>;
  dataDir: string;
}

const running = new Set<Server>();
const tempDirs: string[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function tempDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'parley-startup-'));
  tempDirs.push(dir);
  return dir;
}

function launch(dataDir: string, overrides: Record<string, string> = {}): Server {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    AUTH_MODE: 'disabled',
    ...overrides,
  };
  if (!('DATABASE_URL' in overrides)) delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const server: Server = { child, output, exited, dataDir };
  running.add(server);
  void exited.then(() => running.delete(server));
  return server;
}

async function waitFor<T>(exited: Promise<Exit>, promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  const died = exited.then((exit) => Promise.reject(new Error(`${what}: the server exited early (${JSON.stringify(exit)})`)));
  try {
    return await Promise.race([promise, timeout, died]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls GET /healthz until it answers 200. */
async function waitHealthy(server: Server, baseUrl: string): Promise<void> {
  const poll = async () => {
    for (;;) {
      try {
        const res = await fetch(`${baseUrl}/healthz`);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  };
  await waitFor(server.exited, poll(), HEALTH_TIMEOUT_MS, 'waiting for /healthz').catch((error: Error) => {
    throw new Error(`${error.message}\nstderr:\n${server.output.stderr}\nstdout (tail):\n${server.output.stdout.slice(-2000)}`);
  });
}

async function startServer(dataDir: string): Promise<{ server: Server; baseUrl: string }> {
  const port = await freePort();
  const server = launch(dataDir, { PORT: String(port) });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitHealthy(server, baseUrl);
  return { server, baseUrl };
}

async function stop(server: Server, signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
  server.child.kill(signal);
  return waitFor(new Promise<Exit>(() => undefined), server.exited, 20_000, `waiting for exit after ${signal}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The embedded postmaster serving DATA_DIR/pg: its pid and port (postmaster.pid lines 1 and 4). */
async function postmaster(dataDir: string): Promise<{ pid: number; port: number }> {
  const [pidLine, , , portLine] = (await readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n');
  return { pid: Number(pidLine), port: Number(portLine) };
}

async function embeddedUrl(dataDir: string): Promise<string> {
  const { password } = JSON.parse(await readFile(path.join(dataDir, 'credentials.json'), 'utf8')) as { password: string };
  const { port } = await postmaster(dataDir);
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/parley`;
}

interface MigrationRow {
  id: number;
  timestamp: string;
  name: string;
}

async function appliedMigrations(dataDir: string): Promise<MigrationRow[]> {
  const client = new pg.Client({ connectionString: await embeddedUrl(dataDir) });
  await client.connect();
  try {
    const { rows } = await client.query<MigrationRow>('SELECT id, timestamp::text AS timestamp, name FROM migrations ORDER BY id');
    return rows;
  } finally {
    await client.end();
  }
}

function fatalLines(stderr: string): Array<{ level: string; msg: string }> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string })
    .filter((line) => line.level === 'fatal');
}

/** Never leaves a server (or its embedded PostgreSQL) behind: SIGTERM first, SIGKILL as a last resort. */
async function killAll(): Promise<void> {
  for (const server of [...running]) {
    server.child.kill('SIGTERM');
    const exit = await waitFor(new Promise<Exit>(() => undefined), server.exited, 15_000, 'cleanup').catch(() => undefined);
    if (exit === undefined) {
      server.child.kill('SIGKILL');
      const pidFile = path.join(server.dataDir, 'pg', 'postmaster.pid');
      if (existsSync(pidFile)) {
        const { pid } = await postmaster(server.dataDir);
        if (isAlive(pid)) process.kill(pid, 'SIGINT');
      }
    }
  }
}

afterAll(async () => {
  await killAll();
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

describe('start-up with the embedded database', () => {
  let dataDir: string;
  let workspace: Record<string, unknown>;
  let firstMigrations: MigrationRow[];
  let firstPostmasterPid: number;

  beforeAll(async () => {
    dataDir = await tempDataDir();
  });

  it('starts without DATABASE_URL, is healthy and ready, applies every migration once and serves the API', async () => {
    const { server, baseUrl } = await startServer(dataDir);

    const health = await fetch(`${baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });

    const created = await fetch(`${baseUrl}/api/v1/workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'survives restarts' }),
    });
    expect(created.status).toBe(201);
    workspace = (await created.json()) as Record<string, unknown>;
    expect(workspace).toMatchObject({ name: 'survives restarts', owner_id: '' });

    expect(existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    firstPostmasterPid = (await postmaster(dataDir)).pid;
    expect(isAlive(firstPostmasterPid)).toBe(true);

    firstMigrations = await appliedMigrations(dataDir);
    const expectedNames = MIGRATIONS.map((Migration) => new Migration().name ?? Migration.name);
    expect(firstMigrations.map((row) => row.name)).toEqual(expectedNames);
    expect(server.output.stdout).toContain(`applied migrations: ${expectedNames.join(', ')}`);
    expect(server.output.stdout).toContain('parley listening');
  });

  it('stops on SIGTERM with exit code 0 and stops the embedded PostgreSQL', async () => {
    const [server] = [...running];
    expect(server).toBeDefined();
    const exit = await stop(server!);
    expect({ exit, stderr: fatalLines(server!.output.stderr) }).toEqual({ exit: { code: 0, signal: null }, stderr: [] });
    expect(isAlive(firstPostmasterPid)).toBe(false);
    expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  });

  it('restarts on the same DATA_DIR with its data, without re-applying migrations, and stops on SIGINT', async () => {
    const { server, baseUrl } = await startServer(dataDir);
    const list = await fetch(`${baseUrl}/api/v1/workspaces`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ workspaces: [workspace] });
    await expect((await fetch(`${baseUrl}/readyz`)).json()).resolves.toEqual({ status: 'ready' });

    expect(await appliedMigrations(dataDir)).toEqual(firstMigrations);
    expect(server.output.stdout).not.toContain('applied migrations');

    // SIGINT (Ctrl-C) is as graceful as SIGTERM.
    const { pid } = await postmaster(dataDir);
    const exit = await stop(server, 'SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(isAlive(pid)).toBe(false);
  });
});

describe('bad configuration stops start-up', () => {
  afterEach(killAll);

  it.each([
    { variable: 'PORT', value: 'abc', msg: 'Invalid configuration: PORT must be an integer between 0 and 65535 (got "abc")' },
    { variable: 'AUTH_MODE', value: 'maybe', msg: 'Invalid configuration: AUTH_MODE must be one of disabled, enabled (got "maybe")' },
    { variable: 'DATABASE_URL', value: 'mysql://x', msg: 'Invalid configuration: DATABASE_URL must be a postgres:// or postgresql:// URL' },
    { variable: 'LOG_LEVEL', value: 'loud', msg: 'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")' },
  ])('$variable=$value ⇒ exit code 1 and a stderr line naming $variable', async ({ variable, value, msg }) => {
    const dataDir = await tempDataDir();
    const server = launch(dataDir, { PORT: String(await freePort()), [variable]: value });
    const exit = await waitFor(new Promise<Exit>(() => undefined), server.exited, 20_000, 'waiting for the start-up failure');
    expect(exit).toEqual({ code: 1, signal: null });
    expect(fatalLines(server.output.stderr)).toEqual([{ level: 'fatal', msg }]);
    // Nothing was started: no embedded cluster was created under DATA_DIR.
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(false);
  });
});
