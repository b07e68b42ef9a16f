import { rm } from 'node:fs/promises';
import { EmbeddedDatabase } from '#persistence';
import { eventually } from '../support/eventually.js';
import { isAlive, killAllServers, logLines, postmaster, type ServerProcess, startServerProcess, tempDir, withinLifetime } from '../support/server-process.js';

/**
 * A server on its embedded PostgreSQL (no DATABASE_URL) whose postmaster is killed with SIGKILL — and
 * then started again on the same DATA_DIR and port by another process (this test), or left dead. A
 * SIGTERM afterwards still ends the server cleanly: exit 0, no fatal line, well within main.ts's 10 s
 * shutdown deadline (which would end it with exit 1).
 */

/** Well under main.ts's SHUTDOWN_DEADLINE_MS (10 s), so a shutdown that needed the deadline fails here; a clean one ends far sooner (docs/benchmarks.md, "Figures behind bounds in the code"). */
const SHUTDOWN_BOUND_MS = 5_000;
/** Backends orphaned by the killed postmaster must exit before a new one may use the data directory. */
const RESTART_WITHIN_MS = 30_000;

const dataDirs: string[] = [];
let restarted: EmbeddedDatabase | undefined;

afterAll(async () => {
  await killAllServers();
  await restarted?.stop();
  for (const dataDir of dataDirs) {
    const orphan = await postmaster(dataDir).catch(() => undefined);
    if (orphan && isAlive(orphan.pid)) process.kill(orphan.pid, 'SIGINT');
    await eventually(() => (orphan && isAlive(orphan.pid) ? undefined : true), 10_000, 'the orphaned postmaster stopped');
    await rm(dataDir, { recursive: true, force: true });
  }
});

async function embeddedServer(): Promise<{ server: ServerProcess; dataDir: string; pid: number; port: number }> {
  const dataDir = await tempDir('parley-embedded-death-');
  dataDirs.push(dataDir);
  const server = await startServerProcess({ dataDir });
  expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
  return { server, dataDir, ...(await postmaster(dataDir)) };
}

async function killPostmaster(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await eventually(() => (isAlive(pid) ? undefined : true), 10_000, 'the killed postmaster gone');
}

/** SIGTERM, timed: the exit, how long it took, and the fatal lines the server logged. */
async function terminate(server: ServerProcess): Promise<{ exit: unknown; fatal: unknown[]; ms: number }> {
  const startedAt = Date.now();
  server.child.kill('SIGTERM');
  const exit = await withinLifetime(new Promise<never>(() => undefined), server.exited, 20_000, 'exit after SIGTERM');
  return { exit, fatal: logLines(server.output.stderr, 'fatal').map((line) => line.msg), ms: Date.now() - startedAt };
}

describe('shutdown after the embedded PostgreSQL died', () => {
  it('killed, then started again on the same DATA_DIR by another process: SIGTERM exits 0 promptly', async () => {
    const { server, dataDir, pid, port } = await embeddedServer();
    await killPostmaster(pid);

    restarted = await eventually(
      () => EmbeddedDatabase.start(dataDir, () => undefined, { port }).catch(() => undefined),
      RESTART_WITHIN_MS,
      'PostgreSQL started again on the data directory',
    );
    // The server uses the PostgreSQL that came back (same port): it is the state SIGTERM meets.
    await eventually(async () => ((await fetch(`${server.baseUrl}/readyz`)).status === 200 ? true : undefined), 20_000, '/readyz 200 again');

    const { exit, fatal, ms } = await terminate(server);
    expect({ exit, fatal }).toEqual({ exit: { code: 0, signal: null }, fatal: [] });
    expect(ms).toBeLessThan(SHUTDOWN_BOUND_MS);
    // It stays up: it belongs to the process that started it, not to the server that stopped.
    expect(isAlive((await postmaster(dataDir)).pid)).toBe(true);
  }, 90_000);

  it('killed and left dead: SIGTERM exits 0 promptly', async () => {
    const { server, pid } = await embeddedServer();
    await killPostmaster(pid);
    await eventually(async () => ((await fetch(`${server.baseUrl}/readyz`)).status === 503 ? true : undefined), 10_000, '/readyz 503');

    const { exit, fatal, ms } = await terminate(server);
    expect({ exit, fatal }).toEqual({ exit: { code: 0, signal: null }, fatal: [] });
    expect(ms).toBeLessThan(SHUTDOWN_BOUND_MS);
  }, 60_000);
});
