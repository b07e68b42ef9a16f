/**
 * AUTH_MODE=disabled on a non-loopback HOST serves everything without credentials. The
 * real built server refuses to start so (exit 1, a fatal line naming the variables) unless
 * ALLOW_UNAUTHENTICATED_NETWORK=true, and then warns at every start.
 */
import { rm } from 'node:fs/promises';
import { createTestDatabase } from '../../support/database.js';
import {
  type Exit,
  freePort,
  killAllServers,
  launchServer,
  logLines,
  type ServerProcess,
  stopServer,
  tempDir,
  waitHealthy,
  withinLifetime,
} from '../../support/server-process.js';

const tempDirs: string[] = [];

async function dataDir(): Promise<string> {
  const dir = await tempDir('parley-exposure-');
  tempDirs.push(dir);
  return dir;
}

/** The built server on a database of the test PostgreSQL (no embedded cluster to initialise). */
async function launch(env: Record<string, string>): Promise<ServerProcess> {
  return launchServer({ dataDir: await dataDir(), port: await freePort(), env: { DATABASE_URL: databaseUrl, ...env } });
}

let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await createTestDatabase();
});

const warnings = (server: ServerProcess) =>
  logLines(server.output.stdout).filter((line) => line.level === 'warn' && String(line.msg).startsWith('AUTH_MODE=disabled on HOST='));

afterEach(killAllServers);
afterAll(async () => {
  await killAllServers();
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

describe('AUTH_MODE=disabled on a non-loopback HOST', () => {
  it('refuses to start: exit code 1 and a fatal line naming AUTH_MODE, HOST and ALLOW_UNAUTHENTICATED_NETWORK', async () => {
    const server = await launch({ HOST: '0.0.0.0', AUTH_MODE: 'disabled' });
    const exit = await withinLifetime(new Promise<Exit>(() => undefined), server.exited, 20_000, 'waiting for the start-up failure');
    expect(exit).toEqual({ code: 1, signal: null });
    const fatal = logLines(server.output.stderr, 'fatal');
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.msg).toMatch(/^Invalid configuration: AUTH_MODE is disabled while HOST=0\.0\.0\.0 is not a loopback address: .*ALLOW_UNAUTHENTICATED_NETWORK=true/);
  });

  it('starts with ALLOW_UNAUTHENTICATED_NETWORK=true and logs a warning at every start', async () => {
    const env = { HOST: '0.0.0.0', AUTH_MODE: 'disabled', ALLOW_UNAUTHENTICATED_NETWORK: 'true' };
    for (let start = 0; start < 2; start += 1) {
      const server = await launch(env);
      await waitHealthy(server);
      expect(warnings(server)).toEqual([
        expect.objectContaining({ msg: expect.stringContaining('every route is served without credentials'), host: '0.0.0.0', auth_mode: 'disabled' }),
      ]);
      expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    }
  });

  it('needs nothing and says nothing with AUTH_MODE=enabled on the network (a loopback HOST: libs/config spec)', async () => {
    const server = await launch({ HOST: '0.0.0.0', AUTH_MODE: 'enabled' });
    await waitHealthy(server);
    expect(warnings(server)).toEqual([]);
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
  });
});
