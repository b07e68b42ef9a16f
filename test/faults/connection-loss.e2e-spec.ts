import { setTimeout as delay } from 'node:timers/promises';
import { CommitCutProxy } from '../support/commit-cut-proxy.js';
import { eventually } from '../support/eventually.js';
import { FaultDatabase } from '../support/fault-database.js';
import { freePort, killAllServers, launchServer, logLines, type ServerProcess, stopServer, tempDir, waitHealthy } from '../support/server-process.js';

/**
 * Connections the database ends under an idle process, and a COMMIT whose result never arrives
 * (failover loses nothing acknowledged: the process side).
 *
 * - Every connection of the process terminated from the server side (`pg_terminate_backend`: the
 *   pool's idle connections, the LISTEN connection, the rate limiter's pool), then the postmaster
 *   killed with SIGKILL and started again, while the process idles: the process stays alive (an
 *   `error` event of an idle client never crashes it) and recovers without a restart — /readyz 200,
 *   and an ask and its answer work.
 * - A claim whose COMMIT was sent but whose result never arrived (a proxy cuts the connection right
 *   after forwarding it, or instead of forwarding it): 503 UNAVAILABLE "the outcome is not known;
 *   retry to learn it" — never a success, never a 500 — and the attempt is not recorded as `failed`.
 *   A retry of the same answer settles it: the loser's replay of the committed answer (one `won` row
 *   in the audit trail), or the winning claim when the commit never happened.
 */

const ENV = {
  LOG_LEVEL: 'info',
  DB_POOL_SIZE: '4',
  DB_CONNECT_TIMEOUT_MS: '1000',
  DB_POOL_ACQUIRE_TIMEOUT_MS: '2000',
  LEASE_TTL_MS: '3000',
  LEASE_HEARTBEAT_MS: '500',
};
const QUESTIONS = [{ id: 'q', prompt: 'Go on?', options: [{ option_id: 'yes', label: 'Yes' }, { option_id: 'no', label: 'No' }] }];
const ANSWER = [{ question_id: 'q', selected_options: ['yes'], custom_text: 'once' }];
const OUTCOME_UNKNOWN = { error: 'the outcome is not known; retry to learn it', code: 'UNAVAILABLE' };

let db: FaultDatabase;
let proxy: CommitCutProxy;
let server: ServerProcess;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function ok(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const result = await call(method, path, body);
  if (result.status !== 200 && result.status !== 201) throw new Error(`${method} ${path} answered ${result.status}: ${JSON.stringify(result.body)}`);
  return result.body;
}

/** A RUNNING session with a turn, and a question asked in it: its pending id. */
async function ask(): Promise<string> {
  const workspace = await ok('POST', '/api/v1/workspaces', { name: 'connection loss' });
  const task = await ok('POST', '/api/v1/tasks', { title: 'connection loss', workspace_id: workspace.id });
  const session = await ok('POST', `/api/v1/tasks/${String(task.id)}/sessions`, {});
  await ok('PATCH', `/api/v1/sessions/${String(session.id)}`, { state: 'RUNNING' });
  await ok('POST', `/api/v1/sessions/${String(session.id)}/turns`);
  const asked = await ok('POST', '/api/v1/clarification/request', { session_id: session.id, questions: QUESTIONS });
  return String(asked.pending_id);
}

async function auditOutcomes(pendingId: string, count: number): Promise<string[]> {
  return eventually(
    async () => {
      const rows = await db.query<{ outcome: string }>(`SELECT outcome FROM clarification_audit WHERE pending_id = $1 ORDER BY at, id`, [pendingId]);
      return rows.length >= count ? rows.map((row) => row.outcome) : undefined;
    },
    10_000,
    `${count} audit rows of ${pendingId}`,
  );
}

/** The process's `parley_db_connections_lost` gauge. */
async function connectionsLost(): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Number(/^parley_db_connections_lost (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

function alive(): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

async function recovered(): Promise<void> {
  await eventually(async () => ((await fetch(`${server.baseUrl}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 20_000, '/readyz 200 again');
  // The pool may still hand out a connection the database ended: the answer is at most a 503 then.
  const pendingId = await eventually(() => ask().catch(() => undefined), 10_000, 'an ask served again');
  const answered = await call('POST', `/api/v1/clarification/${pendingId}/respond`, { answers: ANSWER });
  expect({ status: answered.status, claimed: answered.body.claimed }).toEqual({ status: 200, claimed: true });
}

beforeAll(async () => {
  db = await FaultDatabase.start();
  proxy = await CommitCutProxy.start(db.port);
  server = launchServer({ dataDir: await tempDir(), port: await freePort(), env: { ...ENV, DATABASE_URL: proxy.urlFor(db.url) } });
  await waitHealthy(server);
}, 60_000);

afterAll(async () => {
  await killAllServers();
  await proxy?.close();
  await db?.remove();
});

describe('connections the database ends under an idle process', () => {
  it('every connection terminated by the server, then the postmaster killed (-9): the process stays up and recovers without a restart', async () => {
    // Some pooled connections, then idle.
    await Promise.all([ask(), ask(), ask()]);
    await delay(500);
    const before = await db.serverConnections();
    expect(before.parley).toBeGreaterThan(0);
    expect(before['parley-listener']).toBe(1);

    const terminated = await db.query<{ terminated: boolean }>(
      `SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND application_name LIKE 'parley%' AND application_name <> 'parley-fault-observer'`,
    );
    expect(terminated.length).toBeGreaterThanOrEqual(2);
    await delay(1_500);
    expect(alive()).toBe(true);
    // Handled, not swallowed: logged and counted.
    expect(logLines(server.output.stdout, 'warn').filter((line) => line.msg === 'idle database connection lost').length).toBeGreaterThan(0);
    expect(await connectionsLost()).toBeGreaterThan(0);
    await recovered();

    await Promise.all([ask(), ask()]);
    await delay(500);
    await db.killAndRestart();
    await delay(1_500);
    expect(alive()).toBe(true);
    await recovered();

    expect(logLines(server.output.stderr, 'fatal')).toEqual([]);
    expect(server.output.stderr).not.toMatch(/Unhandled 'error' event|uncaught/i);
  }, 120_000);
});

describe('a COMMIT whose result never arrived', () => {
  it('committed, its result cut: 503 "outcome not known", not `failed` in the audit trail; the retry replays the winner, one `won` row', async () => {
    const pendingId = await ask();
    const cut = proxy.arm(pendingId, 'after');
    const first = await call('POST', `/api/v1/clarification/${pendingId}/respond`, { answers: ANSWER });
    expect(await cut).toBe('after');
    expect({ status: first.status, error: first.body.error, code: first.body.code }).toEqual({ status: 503, ...OUTCOME_UNKNOWN });

    const retried = await call('POST', `/api/v1/clarification/${pendingId}/respond`, { answers: ANSWER });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ claimed: false, status: 'answered', response: { answers: ANSWER } });
    expect(await auditOutcomes(pendingId, 2)).toEqual(['won', 'lost']);
    // Nothing rewrites the won row later.
    await delay(1_000);
    expect(await auditOutcomes(pendingId, 2)).toEqual(['won', 'lost']);
    expect(alive()).toBe(true);
  }, 60_000);

  it('never committed (the COMMIT never reached the server): the same 503; the retry claims it', async () => {
    const pendingId = await ask();
    const cut = proxy.arm(pendingId, 'before');
    const first = await call('POST', `/api/v1/clarification/${pendingId}/respond`, { answers: ANSWER });
    expect(await cut).toBe('before');
    expect({ status: first.status, error: first.body.error, code: first.body.code }).toEqual({ status: 503, ...OUTCOME_UNKNOWN });
    expect((await ok('GET', `/api/v1/clarification/${pendingId}`)).status).toBe('pending');

    const retried = await call('POST', `/api/v1/clarification/${pendingId}/respond`, { answers: ANSWER });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ claimed: true, status: 'answered', response: { answers: ANSWER } });
    expect(await auditOutcomes(pendingId, 1)).toEqual(['won']);
    await delay(1_000);
    expect(await auditOutcomes(pendingId, 1)).toEqual(['won']);
    expect(alive()).toBe(true);
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
  }, 60_000);
});
