import { type Database, DatabaseListener, DEFAULT_POOL_OPTIONS } from '#persistence';
import { FaultDatabase } from '../support/fault-database.js';
import {
  backgroundLogLines,
  expectProbesDuringFault,
  expectRecovered,
  expectUnavailableDuring,
  FAULT_ENV,
  loadServedAgain,
  probeUntil,
  rssKib,
  startScenario,
  stopScenario,
} from '../support/outage-scenario.js';
import { type Exit, killAllServers, logLines, type ServerProcess, withinLifetime } from '../support/server-process.js';

/**
 * Issue 9 §5: a hung database — the postmaster and every backend SIGSTOPped for 15 s, so connections
 * stay open and nothing answers. Requests end with a 503 within the connect and statement bounds (set
 * low here), /readyz answers 503 within a few seconds, /healthz stays fast, a server told to stop
 * exits within the shutdown bound; after SIGCONT the service recovers by itself.
 */

const HANG_MS = 15_000;
/** A request waits for a pooled connection (the acquire bound, which also covers opening one it is handed) or opens one (the connect bound). */
const ACQUIRE_OR_CONNECT_MS = Math.max(Number(FAULT_ENV.DB_CONNECT_TIMEOUT_MS), Number(FAULT_ENV.DB_POOL_ACQUIRE_TIMEOUT_MS));
const STATEMENT_TIMEOUT_MS = 2_000;
/** pg's client-side bound on a statement (DB_STATEMENT_TIMEOUT_MS + 1 s, data-source.factory.ts). */
const CLIENT_STATEMENT_BOUND_MS = STATEMENT_TIMEOUT_MS + 1_000;
/**
 * The longest a request may take on a hung database: a statement on a connection that stops
 * answering, then the ROLLBACK of its transaction on the same connection, and getting a connection — plus slack.
 */
const REQUEST_BOUND_MS = 2 * CLIENT_STATEMENT_BOUND_MS + ACQUIRE_OR_CONNECT_MS + 2_000;
/** /readyz: a ping bounded at 2 s until the listener's probe (every 2 s, 1.5 s timeout) notices. */
const READY_BOUND_MS = 4_000;
const HEALTH_BOUND_MS = 1_000;
const SHUTDOWN_BOUND_MS = 12_000;
const FORCED_EXIT = { exit: { code: 1, signal: null }, fatal: ['shutdown did not finish within 10000 ms; exiting'] };
const NEVER = new Promise<Exit>(() => undefined);

let db: FaultDatabase;

beforeAll(async () => {
  db = await FaultDatabase.start();
});

afterAll(async () => {
  await killAllServers();
  await db.remove();
});

describe('database hung under load (issue 9 §5)', () => {
  it('15 s: requests end with 503 within the bounds, /readyz 503, /healthz fast, SIGTERM exits; recovers after SIGCONT', async () => {
    const scenario = await startScenario(db, 2, { DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
    const [server, stopping] = scenario.servers as [ServerProcess, ServerProcess];
    await loadServedAgain(scenario.load, 0);
    const rssBefore = rssKib(server);

    await db.hang();
    const hungAt = Date.now();
    const probes = await probeUntil(server, hungAt + 3_000);
    stopping.child.kill('SIGTERM');
    const exit = await withinLifetime(NEVER, stopping.exited, SHUTDOWN_BOUND_MS, 'exit after SIGTERM while hung');
    probes.push(...(await probeUntil(server, hungAt + HANG_MS)));
    const resumeAt = Date.now();
    db.resume();
    const resumedAt = Date.now();

    const fatal = logLines(stopping.output.stderr, 'fatal').map((line) => line.msg);
    expect([{ exit: { code: 0, signal: null }, fatal: [] }, FORCED_EXIT]).toContainEqual({ exit, fatal });
    expectProbesDuringFault(probes, READY_BOUND_MS, HEALTH_BOUND_MS);
    const outcomes = await expectRecovered(db, scenario, resumedAt);
    expectUnavailableDuring(outcomes, hungAt, resumeAt, REQUEST_BOUND_MS);
    expect(Math.max(...outcomes.map((outcome) => outcome.endedAt - outcome.startedAt))).toBeLessThanOrEqual(REQUEST_BOUND_MS);
    expect(backgroundLogLines(server, hungAt, resumedAt).length).toBeLessThanOrEqual(HANG_MS / 500 + 20);
    expect(rssKib(server)).toBeLessThan(rssBefore * 2);
    await stopScenario(scenario);
  }, 120_000);

  it('closing the LISTEN connection does not wait for a hung database to acknowledge it', async () => {
    const listener = new DatabaseListener({ url: db.url, poolOptions: DEFAULT_POOL_OPTIONS } as unknown as Database);
    await listener.onModuleInit();
    await db.hang();
    try {
      await withinLifetime(NEVER, listener.beforeApplicationShutdown(), 5_000, 'closing the listener');
    } finally {
      db.resume();
    }
  });
});
