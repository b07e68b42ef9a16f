import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { MIGRATIONS } from '../../../migrations/index.js';
import {
  embeddedUrl,
  type Exit,
  freePort,
  isAlive,
  killAllServers,
  launchServer,
  logLines,
  postmaster,
  type ServerProcess,
  stopServer,
  tempDir,
  waitHealthy,
  withinLifetime,
} from '../../support/server-process.js';

/**
 * The real built server (`npm run build` ⇒ dist/apps/server/src/main.js) started as a child process:
 * embedded PostgreSQL when DATABASE_URL is unset, graceful SIGTERM, data kept across restarts,
 * migrations applied once, and configuration errors that stop start-up.
 */

const tempDirs: string[] = [];
const running: ServerProcess[] = [];

async function tempDataDir(): Promise<string> {
  const dir = await tempDir('parley-startup-');
  tempDirs.push(dir);
  return dir;
}

function launch(dataDir: string, overrides: Record<string, string> = {}): ServerProcess {
  const server = launchServer({ dataDir, port: Number(overrides.PORT), env: overrides });
  running.push(server);
  return server;
}

async function startServer(dataDir: string): Promise<{ server: ServerProcess; baseUrl: string }> {
  const server = launch(dataDir, { PORT: String(await freePort()) });
  await waitHealthy(server);
  return { server, baseUrl: server.baseUrl };
}

const stop = stopServer;

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
  return logLines(stderr, 'fatal').map(({ level, msg }) => ({ level: level as string, msg: msg as string }));
}

const killAll = killAllServers;

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
    const server = running[running.length - 1];
    expect(server).toBeDefined();
    const exit = await stop(server);
    expect({ exit, stderr: fatalLines(server.output.stderr) }).toEqual({ exit: { code: 0, signal: null }, stderr: [] });
    expect(isAlive(firstPostmasterPid)).toBe(false);
    expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  });

  it('restarts on the same DATA_DIR with its data, without re-applying migrations, and stops on SIGINT', async () => {
    const { server, baseUrl } = await startServer(dataDir);
    const list = await fetch(`${baseUrl}/api/v1/workspaces`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ workspaces: [workspace], next_cursor: '' });
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
    const exit = await withinLifetime(new Promise<Exit>(() => undefined), server.exited, 20_000, 'waiting for the start-up failure');
    expect(exit).toEqual({ code: 1, signal: null });
    expect(fatalLines(server.output.stderr)).toEqual([{ level: 'fatal', msg }]);
    // Nothing was started: no embedded cluster was created under DATA_DIR.
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(false);
  });

  it('RESUME_WEBHOOK_URL the outbound policy refuses ⇒ exit code 1 and a stderr line naming it', async () => {
    const dataDir = await tempDataDir();
    const server = launch(dataDir, {
      PORT: String(await freePort()),
      RESUME_WEBHOOK_URL: 'http://169.254.169.254/latest/meta-data',
      OUTBOUND_ALLOW_PRIVATE_TARGETS: 'false',
    });
    const exit = await withinLifetime(new Promise<Exit>(() => undefined), server.exited, 20_000, 'waiting for the start-up failure');
    expect(exit).toEqual({ code: 1, signal: null });
    expect(fatalLines(server.output.stderr)).toEqual([
      {
        level: 'fatal',
        msg: 'Invalid configuration: RESUME_WEBHOOK_URL points at a loopback, private or link-local address (allowed only with OUTBOUND_ALLOW_PRIVATE_TARGETS=true)',
      },
    ]);
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(false);
  });
});
