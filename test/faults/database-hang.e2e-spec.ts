import { setTimeout as delay } from 'node:timers/promises';
import { type Database, DatabaseListener, DatabaseReachability, DEFAULT_POOL_OPTIONS } from '#persistence';
import { eventually } from '../support/eventually.js';
import { FaultDatabase } from '../support/fault-database.js';
import { type Outcome, UNAVAILABLE_MESSAGE } from '../support/fault-load.js';
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
 * A hung database — the postmaster and every backend SIGSTOPped for 15 s, so connections
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

/** Fail-fast case: a statement bound far above the connect bound, so waiting on a frozen connection shows. */
const LONG_STATEMENT_TIMEOUT_MS = 10_000;
/** Long enough that requests arrive well after the outage is known, on connections pooled before it. */
const LONG_HANG_MS = 30_000;
/** After detection: refused at once, or a new connection given up at DB_CONNECT_TIMEOUT_MS — plus slack for a loaded machine. */
const FAIL_FAST_BOUND_MS = Number(FAULT_ENV.DB_CONNECT_TIMEOUT_MS) + 1_500;
/** The process notices a hang through its probe (every 2 s, 1.5 s timeout, sent twice) or a request's failed connect. */
const DETECTION_BOUND_MS = 10_000;
/** The lines with which the process records that it knows the database is unreachable. */
const DETECTED = new Set(['database connection lost', 'database unreachable']);

let db: FaultDatabase;

/** Dry-run commands (POST /api/v1/commands) in a loop, timed like the load's requests, until `running()` is false. */
async function commandLoop(baseUrl: string, bearer: string, running: () => boolean, outcomes: Outcome[]): Promise<void> {
  for (let n = 0; running(); n += 1) {
    const startedAt = Date.now();
    const verdict = await fetch(`${baseUrl}/api/v1/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify({
        schema_version: 1,
        action: 'answer_decision',
        request_id: `hang-probe-${String(n)}`,
        target: { worker_id: 'no-such-worker' },
        params: { decision_ref: 'none', selection: { option_refs: ['1'] } },
      }),
      signal: AbortSignal.timeout(90_000),
    }).then(
      async (response) => {
        const text = await response.text();
        const body = JSON.parse(text) as { error?: unknown; status?: unknown; schema_version?: unknown };
        if (response.status === 503 && (body.error === UNAVAILABLE_MESSAGE || body.status === 'backend_unavailable')) return 'unavailable';
        // A typed answer about the made-up worker: the command was served.
        if (response.status < 500 && typeof body.schema_version === 'number' && typeof body.status === 'string') return 'ok';
        return `${String(response.status)} ${text.slice(0, 300)}`;
      },
      (error: unknown) => `command failed: ${String(error)}`,
    );
    outcomes.push({ op: 'command', verdict, startedAt, endedAt: Date.now() });
    await delay(40);
  }
}

/** When the server first logged that it knows the database is unreachable, at or after `since`. */
function detectedAt(server: ServerProcess, since: number): number | undefined {
  const times = logLines(server.output.stdout)
    .filter((line) => DETECTED.has(String(line.msg)))
    .map((line) => Date.parse(String(line.time)))
    .filter((at) => at >= since);
  return times.length === 0 ? undefined : Math.min(...times);
}

beforeAll(async () => {
  db = await FaultDatabase.start();
});

afterAll(async () => {
  await killAllServers();
  await db.remove();
});

describe('database hung under load', () => {
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

  it('30 s: once the outage is known, every surface answers 503 within the connect bound, also on connections pooled before it; recovers after SIGCONT', async () => {
    const scenario = await startScenario(db, 1, { DB_STATEMENT_TIMEOUT_MS: String(LONG_STATEMENT_TIMEOUT_MS) });
    const [server] = scenario.servers as [ServerProcess];
    await loadServedAgain(scenario.load, 0);
    const commands: Outcome[] = [];
    let commanding = true;
    const commandsDone = commandLoop(server.baseUrl, scenario.bearer, () => commanding, commands);
    try {
      await delay(1_000);
      expect(commands.length).toBeGreaterThan(0);
      expect(commands.filter((outcome) => outcome.verdict !== 'ok')).toEqual([]);

      await db.hang();
      const hungAt = Date.now();
      await delay(LONG_HANG_MS);
      const resumeAt = Date.now();
      db.resume();
      const resumedAt = Date.now();

      const outcomes = await expectRecovered(db, scenario, resumedAt);
      await eventually(() => (commands.some((outcome) => outcome.startedAt >= resumedAt && outcome.verdict === 'ok') ? true : undefined), 15_000, 'a command served again');
      commanding = false;
      await commandsDone;
      expect(commands.filter((outcome) => outcome.verdict !== 'ok' && outcome.verdict !== 'unavailable')).toEqual([]);

      const detected = detectedAt(server, hungAt);
      expect(detected).toBeDefined();
      expect((detected as number) - hungAt).toBeLessThanOrEqual(DETECTION_BOUND_MS);
      // Every request that started after the detection, and early enough that the hang outlived its bound.
      const after = [...outcomes, ...commands].filter((outcome) => outcome.startedAt >= (detected as number) && outcome.startedAt <= resumeAt - FAIL_FAST_BOUND_MS);
      // REST (an answer; a client asks again only once its answer was served), GraphQL, MCP, commands.
      expect([...new Set(after.map((outcome) => outcome.op))]).toEqual(expect.arrayContaining(['answer', 'graphql', 'mcp', 'command']));
      const slowOrServed = after
        .filter((outcome) => outcome.verdict !== 'unavailable' || outcome.endedAt - outcome.startedAt > FAIL_FAST_BOUND_MS)
        .map((outcome) => ({ op: outcome.op, verdict: outcome.verdict, ms: outcome.endedAt - outcome.startedAt, afterDetectionMs: outcome.startedAt - (detected as number) }));
      expect(slowOrServed).toEqual([]);
      // Before the detection nothing waits longer than the old bounds either.
      expect(Math.max(...outcomes.map((outcome) => outcome.endedAt - outcome.startedAt))).toBeLessThanOrEqual(2 * (LONG_STATEMENT_TIMEOUT_MS + 1_000) + ACQUIRE_OR_CONNECT_MS + 2_000);
      await stopScenario(scenario);
    } finally {
      commanding = false;
      await commandsDone;
    }
  }, 180_000);

  it('closing the LISTEN connection does not wait for a hung database to acknowledge it', async () => {
    const listener = new DatabaseListener({ url: db.url, directUrl: db.url, poolOptions: DEFAULT_POOL_OPTIONS, reachability: new DatabaseReachability() } as unknown as Database);
    await listener.onModuleInit();
    await db.hang();
    try {
      await withinLifetime(NEVER, listener.beforeApplicationShutdown(), 5_000, 'closing the listener');
    } finally {
      db.resume();
    }
  });
});
