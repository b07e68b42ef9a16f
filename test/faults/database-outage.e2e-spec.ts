import { FaultDatabase } from '../support/fault-database.js';
import { eventually } from '../support/eventually.js';
import { subscribe } from '../support/graphql.js';
import {
  backgroundLogLines,
  expectProbesDuringFault,
  expectRecovered,
  expectUnavailableDuring,
  loadServedAgain,
  probeUntil,
  rssKib,
  startScenario,
  stopScenario,
} from '../support/outage-scenario.js';
import { type Exit, killAllServers, logLines, type ServerProcess, withinLifetime } from '../support/server-process.js';

/**
 * The database stopped under load — for 3 s, and for 60 s (longer than a lease). While it
 * is away every request fails fast with a 503 and a JSON error on every surface (never a 401, never a
 * hang), /readyz is 503 and /healthz stays 200; once PostgreSQL is back the same process serves again
 * with exactly one LISTEN connection, a bounded pool and bounded logs and memory, and the agents that
 * were blocked before the outage get the answer given after it, and a subscriber that stayed connected
 * through it gets the events of those answers (the feed's reader reads on the LISTEN connection, which
 * the outage cut). A server told to stop during the outage exits within the shutdown bound.
 */

const ANSWERED_EVENTS = `subscription { questionEvents { type pendingId } }`;

/** "Fails fast": a refused connection is immediate; DB_CONNECT_TIMEOUT_MS (1 s) plus slack for a busy machine. */
const FAIL_FAST_MS = 3_000;
/** Lines no request caused (reconnects, sweeps, feed polls) allowed per second of outage, plus a constant. */
const BACKGROUND_LINES_PER_SECOND = 2;
/** main.ts's SHUTDOWN_DEADLINE_MS and a margin. */
const SHUTDOWN_BOUND_MS = 12_000;
const FORCED_EXIT = { exit: { code: 1, signal: null }, fatal: ['shutdown did not finish within 10000 ms; exiting'] };

let db: FaultDatabase;

beforeAll(async () => {
  db = await FaultDatabase.start();
});

afterAll(async () => {
  await killAllServers();
  await db.remove();
});

describe('database stopped under load', () => {
  it('3 s: fails fast with 503 on every surface, /readyz 503, /healthz 200; recovers without a restart', async () => {
    const scenario = await startScenario(db);
    const [server] = scenario.servers as [ServerProcess];
    await loadServedAgain(scenario.load, 0);
    const rssBefore = rssKib(server);
    const feed = subscribe<{ questionEvents: { type: string; pendingId: string } }>(server, ANSWERED_EVENTS, {
      connectionParams: { authorization: `Bearer ${scenario.bearer}` },
    });
    // Live once it has delivered an event of the load (opening it reads the feed's head).
    await feed.waitFor(1, 15_000);

    await db.stop();
    const stoppedAt = Date.now();
    // A subscription opened while the database is away is refused.
    const refused = subscribe(server, ANSWERED_EVENTS, { connectionParams: { authorization: `Bearer ${scenario.bearer}` } });
    const refusal = await refused.waitForError(FAIL_FAST_MS + 2_000);
    await refused.close();
    const probes = await probeUntil(server, stoppedAt + 3_000);
    const restartAt = Date.now();
    await db.restart();
    const restartedAt = Date.now();

    // Its connection_init credential cannot be looked up: Mercurius refuses the connection with a
    // `connection_error` ("Forbidden"), a message graphql-ws clients report as a protocol error.
    expect(String(refusal)).toMatch(/connection_error/);
    expect(refused.events).toEqual([]);
    expectProbesDuringFault(probes, FAIL_FAST_MS, FAIL_FAST_MS);
    const outcomes = await expectRecovered(db, scenario, restartedAt);
    expectUnavailableDuring(outcomes, stoppedAt, restartAt, FAIL_FAST_MS);
    const blocked = [scenario.agents.wait.pendingId, scenario.agents.ask.pendingId];
    const answered = () => new Set(feed.events.filter((event) => event.questionEvents.type === 'ANSWERED').map((event) => event.questionEvents.pendingId));
    await eventually(() => (blocked.every((pendingId) => answered().has(pendingId)) ? true : undefined), 15_000, 'the ANSWERED events of the two answers given after the outage');
    await feed.close();
    expect(backgroundLogLines(server, stoppedAt, restartedAt).length).toBeLessThanOrEqual(3 * BACKGROUND_LINES_PER_SECOND + 20);
    expect(rssKib(server)).toBeLessThan(rssBefore * 2);
    await stopScenario(scenario);
    expect(logLines(server.output.stderr, 'fatal')).toEqual([]);
  }, 90_000);

  it('60 s: the same, the pool bounded after it; a server told to stop during the outage exits within the bound', async () => {
    const scenario = await startScenario(db, 2);
    const [server, stopping] = scenario.servers as [ServerProcess, ServerProcess];
    await loadServedAgain(scenario.load, 0);
    const rssBefore = rssKib(server);

    await db.stop();
    const stoppedAt = Date.now();
    const probes = await probeUntil(server, stoppedAt + 20_000);
    stopping.child.kill('SIGTERM');
    const exit = await withinLifetime(new Promise<Exit>(() => undefined), stopping.exited, SHUTDOWN_BOUND_MS, 'exit after SIGTERM during the outage');
    probes.push(...(await probeUntil(server, stoppedAt + 60_000)));
    const restartAt = Date.now();
    await db.restart();
    const restartedAt = Date.now();

    // Exit 0, or the documented forced exit (code 1 and its fatal line) when closing could not finish in time.
    const fatal = logLines(stopping.output.stderr, 'fatal').map((line) => line.msg);
    expect([{ exit: { code: 0, signal: null }, fatal: [] }, FORCED_EXIT]).toContainEqual({ exit, fatal });
    expectProbesDuringFault(probes, FAIL_FAST_MS, FAIL_FAST_MS);
    const outcomes = await expectRecovered(db, scenario, restartedAt);
    expectUnavailableDuring(outcomes, stoppedAt, restartAt, FAIL_FAST_MS);
    expect(backgroundLogLines(server, stoppedAt, restartedAt).length).toBeLessThanOrEqual(60 * BACKGROUND_LINES_PER_SECOND + 20);
    expect(rssKib(server)).toBeLessThan(rssBefore * 2);
    await stopScenario(scenario);
  }, 180_000);
});
