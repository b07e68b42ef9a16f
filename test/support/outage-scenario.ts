import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { eventually } from './eventually.js';
import type { FaultDatabase } from './fault-database.js';
import { MixedLoad, type Outcome } from './fault-load.js';
import { connectMcp, type McpConnection } from './mcp.js';
import { freePort, launchServer, logLines, type ServerProcess, stopServer, tempDir, waitHealthy } from './server-process.js';

/**
 * The set-up every database-fault test shares: spawned servers on a FaultDatabase with auth enabled
 * (so the caller lookup itself needs the database), a mixed load of REST, GraphQL and MCP clients,
 * and the two ways an agent blocks on an answer — a `/wait` with its session agent token and an
 * in-session MCP ask — attached before the fault.
 */

/** What the scenario needs of the database under fault: a FaultDatabase, or a PatroniCluster behind HAProxy. */
export type ScenarioDatabase = Pick<FaultDatabase, 'url' | 'query' | 'serverConnections'>;

export const FAULT_ADMIN_TOKEN = 'fault-admin-token-0123456789abcdef';
export const POOL_SIZE = 6;
const CONNECT_TIMEOUT_MS = 1_000;
/** A request queued behind a full pool waits longer than a connect may take (bursts are not outages). */
const ACQUIRE_TIMEOUT_MS = 2_000;
const LOAD_CLIENTS = 3;
/** A blocked agent must outlive the longest fault: its bound is not what these tests are about. */
const AGENT_WAIT_MS = 600_000;

export const FAULT_ENV: Record<string, string> = {
  AUTH_MODE: 'enabled',
  ADMIN_TOKEN: FAULT_ADMIN_TOKEN,
  LOG_LEVEL: 'info',
  DB_POOL_SIZE: String(POOL_SIZE),
  DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  DB_POOL_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
  WAIT_TIMEOUT_MS: String(AGENT_WAIT_MS),
  ASK_TIMEOUT_MS: String(AGENT_WAIT_MS),
};

const ANSWER = [{ question_id: 'q', selected_options: ['yes'], custom_text: 'after the fault' }];
const AGENT_QUESTION = [{ id: 'q', prompt: 'Go on?', options: [{ option_id: 'yes', label: 'Yes' }, { option_id: 'no', label: 'No' }] }];

export interface Session {
  id: string;
  agentToken: string;
}

export interface BlockedAgents {
  /** GET /clarification/:id/wait with the session's agent token: status and body once it returns. */
  wait: { pendingId: string; result: Promise<{ status: number; body: Record<string, unknown> }> };
  /** The in-session `ask_user_question_kandev`, blocked until the bundle is answered. */
  ask: { pendingId: string; result: Promise<{ isError: boolean; text: string }>; connection: McpConnection };
}

export interface Scenario {
  servers: ServerProcess[];
  bearer: string;
  load: MixedLoad;
  agents: BlockedAgents;
}

async function call(baseUrl: string, method: string, path: string, bearer: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A user's token, and RUNNING sessions in a workspace of theirs, through the public API. */
export async function arrange(baseUrl: string, sessions: number): Promise<{ bearer: string; sessions: Session[] }> {
  const user = await call(baseUrl, 'POST', '/api/v1/admin/users', FAULT_ADMIN_TOKEN, { name: 'fault tester' });
  const { token: bearer } = (await call(baseUrl, 'POST', `/api/v1/admin/users/${String(user.id)}/tokens`, FAULT_ADMIN_TOKEN, {})) as { token: string };
  const workspace = await call(baseUrl, 'POST', '/api/v1/workspaces', bearer, { name: 'faults' });
  const task = await call(baseUrl, 'POST', '/api/v1/tasks', bearer, { title: 'under faults', workspace_id: workspace.id });
  const created: Session[] = [];
  for (let i = 0; i < sessions; i += 1) {
    const session = await call(baseUrl, 'POST', `/api/v1/tasks/${String(task.id)}/sessions`, bearer, {});
    const id = String(session.id);
    await call(baseUrl, 'PATCH', `/api/v1/sessions/${id}`, bearer, { state: 'RUNNING' });
    await call(baseUrl, 'POST', `/api/v1/sessions/${id}/turns`, bearer);
    created.push({ id, agentToken: String(session.agent_token) });
  }
  return { bearer, sessions: created };
}

/** The agent's live wait is recorded (its presence row), so an answer is handed to it. */
async function attached(db: ScenarioDatabase, pendingId: string): Promise<void> {
  await eventually(
    async () => ((await db.query(`SELECT 1 FROM clarification_waiters WHERE pending_id = $1`, [pendingId])).length > 0 ? true : undefined),
    10_000,
    `the agent waiting on ${pendingId}`,
  );
}

async function blockAgents(db: ScenarioDatabase, server: ServerProcess, bearer: string, waiting: Session, asking: Session): Promise<BlockedAgents> {
  const { pending_id: waitId } = (await call(server.baseUrl, 'POST', '/api/v1/clarification/request', bearer, {
    session_id: waiting.id,
    questions: AGENT_QUESTION,
  })) as { pending_id: string };
  const waitResult = fetch(`${server.baseUrl}/api/v1/clarification/${waitId}/wait`, {
    headers: { authorization: `Bearer ${waiting.agentToken}` },
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));

  const connection = await connectMcp(server.baseUrl, { bearer: asking.agentToken, path: '/mcp/session' });
  const askResult = connection.client
    .callTool({ name: 'ask_user_question_kandev', arguments: { questions: AGENT_QUESTION } }, undefined, { timeout: AGENT_WAIT_MS })
    .then((result) => ({
      isError: result.isError === true,
      text: ((result.content ?? []) as Array<{ text?: string }>)[0]?.text ?? '',
    }));
  // Awaited only once the fault is over; a test that fails before that must not leave them unhandled.
  waitResult.catch(() => undefined);
  askResult.catch(() => undefined);
  const askId = await eventually(
    async () => (await db.query<{ pending_id: string }>(`SELECT pending_id FROM clarification_bundles WHERE session_id = $1`, [asking.id]))[0]?.pending_id,
    10_000,
    'the in-session ask',
  );
  await attached(db, waitId);
  await attached(db, askId);
  return { wait: { pendingId: waitId, result: waitResult }, ask: { pendingId: askId, result: askResult, connection } };
}

/** `count` servers on the fault database, the load running against the first, both agents blocked on it. */
export async function startScenario(db: ScenarioDatabase, count = 1, env: Record<string, string> = {}): Promise<Scenario> {
  const servers: ServerProcess[] = [];
  for (let i = 0; i < count; i += 1) {
    servers.push(launchServer({ dataDir: await tempDir(), port: await freePort(), env: { ...FAULT_ENV, ...env, DATABASE_URL: db.url } }));
  }
  await Promise.all(servers.map(waitHealthy));
  const [server] = servers as [ServerProcess];
  const { bearer, sessions } = await arrange(server.baseUrl, LOAD_CLIENTS + 2);
  const [waiting, asking, ...loaded] = sessions as [Session, Session, ...Session[]];
  const agents = await blockAgents(db, server, bearer, waiting, asking);
  const load = new MixedLoad(server.baseUrl, bearer, loaded.map((session) => session.id));
  load.start();
  return { servers, bearer, load, agents };
}

/** Answers both blocked agents' bundles (on `answering`, the first server by default) and returns what each agent received. */
export async function answerBlockedAgents(scenario: Scenario, answering: ServerProcess = scenario.servers[0]): Promise<{
  answers: Array<Record<string, unknown>>;
  wait: { status: number; body: Record<string, unknown> };
  ask: { isError: boolean; text: string };
}> {
  const { baseUrl } = answering;
  const { wait, ask } = scenario.agents;
  const answers = [
    await call(baseUrl, 'POST', `/api/v1/clarification/${wait.pendingId}/respond`, scenario.bearer, { answers: ANSWER }),
    await call(baseUrl, 'POST', `/api/v1/clarification/${ask.pendingId}/respond`, scenario.bearer, { answers: ANSWER }),
  ];
  const received = { answers, wait: await wait.result, ask: await ask.result };
  await ask.connection.close();
  return received;
}

/** Outcomes of requests that started after `from` and ended before `to`. */
export function within(outcomes: readonly Outcome[], from: number, to: number): Outcome[] {
  return outcomes.filter((outcome) => outcome.startedAt >= from && outcome.endedAt <= to);
}

/** Polls until every kind of request of the load has been served again since `since`. */
export async function loadServedAgain(load: MixedLoad, since: number, timeoutMs = 20_000): Promise<void> {
  await eventually(
    () => {
      const served = new Set(load.snapshot().filter((outcome) => outcome.startedAt >= since && outcome.verdict === 'ok').map((outcome) => outcome.op));
      return served.size === 4 ? true : undefined;
    },
    timeoutMs,
    'ask, answer, GraphQL and MCP requests served again',
  );
}

/** The process's resident set size in KiB. */
export function rssKib(server: ServerProcess): number {
  const line = readFileSync(`/proc/${String(server.child.pid)}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1]);
}

/**
 * Log lines of the process written between `from` and `to` that no request caused (a reconnect loop,
 * a sweeper, the event feed): the ones that storm when something retries without bound.
 */
export function backgroundLogLines(server: ServerProcess, from: number, to: number): string[] {
  return server.output.stdout.split('\n').filter((line) => {
    if (!line.startsWith('{')) return false;
    const entry = JSON.parse(line) as { time?: number; timestamp?: number; reqId?: string; message?: { request_id?: string } };
    const at = entry.time ?? entry.timestamp ?? 0;
    return at >= from && at <= to && entry.reqId === undefined && entry.message?.request_id === undefined;
  });
}

export interface Probe {
  path: string;
  status: number;
  body: unknown;
  ms: number;
}

/** GET `path` once, timed. */
export async function probe(server: ServerProcess, path: string): Promise<Probe> {
  const startedAt = Date.now();
  const response = await fetch(`${server.baseUrl}${path}`, { signal: AbortSignal.timeout(60_000) });
  const body: unknown = await response.json();
  return { path, status: response.status, body, ms: Date.now() - startedAt };
}

/** Requests that came back as neither served nor their surface's "database unavailable". */
export function defects(outcomes: readonly Outcome[]): Outcome[] {
  return outcomes.filter((outcome) => outcome.verdict !== 'ok' && outcome.verdict !== 'unavailable');
}

/** Every request of every kind made while the database was away failed with its surface's 503, within `boundMs`. */
export function expectUnavailableDuring(outcomes: readonly Outcome[], from: number, to: number, boundMs: number): void {
  const during = within(outcomes, from, to);
  expect(new Set(during.map((outcome) => outcome.op))).toEqual(new Set(['ask', 'answer', 'graphql', 'mcp']));
  expect(during.filter((outcome) => outcome.verdict !== 'unavailable')).toEqual([]);
  expect(during.filter((outcome) => outcome.endedAt - outcome.startedAt > boundMs)).toEqual([]);
}

/** /readyz and /healthz, one after the other, until `until`. */
export async function probeUntil(server: ServerProcess, until: number): Promise<Probe[]> {
  const probes: Probe[] = [];
  while (Date.now() < until) {
    probes.push(await probe(server, '/readyz'), await probe(server, '/healthz'));
    await delay(250);
  }
  return probes;
}

/** /readyz 503 with a JSON error within `readyBoundMs`; /healthz 200 within `healthBoundMs`. */
export function expectProbesDuringFault(probes: readonly Probe[], readyBoundMs: number, healthBoundMs: number): void {
  const ready = probes.filter((p) => p.path === '/readyz');
  const health = probes.filter((p) => p.path === '/healthz');
  expect(ready.length).toBeGreaterThan(2);
  expect(ready.filter((p) => p.status !== 503 || typeof (p.body as { error?: unknown }).error !== 'string' || p.ms > readyBoundMs)).toEqual([]);
  expect(health.filter((p) => p.status !== 200 || p.ms > healthBoundMs)).toEqual([]);
}

/**
 * After the fault, without any restart: /readyz 200, every kind of request served again, both blocked
 * agents get the answer given now, no request ever came back as anything but served or 503, exactly
 * one LISTEN connection per running server, and the pool within its size. Returns the load's outcomes.
 */
export async function expectRecovered(db: ScenarioDatabase, scenario: Scenario, restartedAt: number, answering?: ServerProcess): Promise<Outcome[]> {
  const [server] = scenario.servers as [ServerProcess];
  await eventually(async () => ((await probe(server, '/readyz')).status === 200 ? true : undefined), 15_000, '/readyz 200 again');
  await loadServedAgain(scenario.load, restartedAt);

  const received = await answerBlockedAgents(scenario, answering);
  expect(received.answers.map((answer) => answer.claimed)).toEqual([true, true]);
  expect(received.wait.status).toBe(200);
  expect(received.wait.body).toMatchObject({ answers: [{ question_id: 'q', selected_options: ['yes'], custom_text: 'after the fault' }], rejected: false });
  expect(received.ask.isError).toBe(false);
  expect(received.ask.text).toContain('"after the fault"');

  const outcomes = await scenario.load.stop();
  // A defect comes with the servers' own error lines, so a failure says what the server saw.
  const found = defects(outcomes);
  const errors = found.length === 0 ? [] : scenario.servers.flatMap((candidate) => [...logLines(candidate.output.stdout, 'error'), ...logLines(candidate.output.stderr, 'error')].map((line) => `${String(line.msg)}: ${JSON.stringify(line.err).slice(0, 600)}`));
  expect({ defects: found, errors }).toEqual({ defects: [], errors: [] });
  const running = scenario.servers.filter((candidate) => candidate.child.exitCode === null && candidate.child.signalCode === null).length;
  let connections: Record<string, number> = {};
  await eventually(
    async () => {
      connections = await db.serverConnections();
      return connections['parley-listener'] === running ? true : undefined;
    },
    15_000,
    `${running} LISTEN connection(s)`,
  ).catch(() => undefined);
  expect(connections['parley-listener']).toBe(running);
  expect(connections.parley ?? 0).toBeLessThanOrEqual(running * POOL_SIZE);
  return outcomes;
}

/** SIGTERM to every server of the scenario still running: each exits 0. */
export async function stopScenario(scenario: Scenario): Promise<void> {
  const running = scenario.servers.filter((server) => server.child.exitCode === null && server.child.signalCode === null);
  const exits = await Promise.all(running.map((server) => stopServer(server)));
  expect(exits).toEqual(running.map(() => ({ code: 0, signal: null })));
}
