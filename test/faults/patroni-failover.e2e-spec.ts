import { setTimeout as delay } from 'node:timers/promises';
import { eventually } from '../support/eventually.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';
import { arrange, expectRecovered, type Scenario, type Session, startScenario, stopScenario } from '../support/outage-scenario.js';
import { type MemberName, PatroniCluster } from '../support/patroni-cluster.js';
import { freePort, killAllServers, launchServer, logLines, type ServerProcess, stopServer, tempDir, waitHealthy } from '../support/server-process.js';
import { type Answer, isRetryable, type Outcome, submit, type Surface } from '../support/surfaces.js';

/**
 * Parley on a real PostgreSQL cluster as operators run one: Patroni (Raft, two members and a witness)
 * with synchronous replication in strict mode, HAProxy routing to the leader by Patroni's `/primary`
 * check, two Parley servers pointed at HAProxy (test/support/patroni-cluster.ts).
 *
 * - `kill -9` of the leader's postmaster while agents ask and people answer on every surface (REST,
 *   GraphQL, MCP, the command API; each bundle raced by all four across both servers) and the mixed
 *   load runs: every answer that got a 2xx is the bundle's answer in the database, once (one `won`
 *   audit row); no bundle has two winners; the agents blocked in `/wait` and in the MCP ask before the
 *   kill get the answer given after it; both processes survive and serve again with no restart; the
 *   unavailability window (kill → the first acknowledged write) is measured.
 * - The synchronous standby stopped: nothing is acknowledged. An answer waits (the leader holds its
 *   COMMIT until a standby has it) and, at the statement bound, is a retryable 503 "outcome not
 *   known"; a COMMIT whose wait an operator cancels (PostgreSQL then reports success with a WARNING)
 *   is the same 503. Once the standby is back, retries settle each with one winner, on both members.
 */

const ANSWERING: ReadonlyArray<Surface | 'command'> = ['rest', 'graphql', 'mcp', 'command'];
const QUESTIONS = [{ id: 'q', prompt: 'Ship it?', options: [{ option_id: 'yes', label: 'Yes' }, { option_id: 'no', label: 'No' }] }];
/** Each surface's own answer, so the database tells which one won. The command API picks option 2 ("no"). */
const ANSWER_OF: Record<Surface | 'command', Answer[]> = {
  rest: [{ question_id: 'q', selected_options: ['yes'], custom_text: 'rest' }],
  graphql: [{ question_id: 'q', selected_options: ['yes'], custom_text: 'graphql' }],
  mcp: [{ question_id: 'q', selected_options: ['yes'], custom_text: 'mcp' }],
  command: [{ question_id: 'q', selected_options: ['no'], custom_text: '' }],
};
const RACING_SESSIONS = 4;
/** How long after the kill the race keeps asking and answering. */
const RACE_AFTER_KILL_MS = 20_000;
/** A submitter gives up retrying after this (it then counts as never acknowledged). */
const SETTLE_MS = 60_000;
/** Recovery must happen by itself within this; the measured window is reported, not asserted against. */
const RECOVERY_BOUND_MS = 30_000;
/** The race and the mixed load run far above the per-user budgets, which are not what this test is about. */
const UNLIMITED = { RATE_LIMIT_ANSWERS: '100000', RATE_LIMIT_LISTS: '100000', RATE_LIMIT_ASKS: '100000' };
const OUTCOME_UNKNOWN = { error: 'the outcome is not known; retry to learn it', code: 'UNAVAILABLE' };

/** A 2xx of one answering surface: what the caller was told. */
interface Acknowledged {
  pendingId: string;
  surface: Surface | 'command';
  /** When the attempt that got the 2xx started, and when its answer arrived. */
  startedAt: number;
  at: number;
  /** REST, GraphQL, MCP: whether this request's answer won; the command API acknowledges only a win. */
  claimed: boolean;
  /** The bundle's answer as this caller was told it (the winner's, for a loser). */
  answers: Answer[];
}

let cluster: PatroniCluster;

beforeAll(async () => {
  cluster = await PatroniCluster.start();
}, 180_000);

afterAll(async () => {
  await killAllServers();
  await cluster?.remove();
});

async function post(server: ServerProcess, path: string, bearer: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(90_000),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, body: { text } };
  }
}

async function get(server: ServerProcess, path: string, bearer?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {}, signal: AbortSignal.timeout(30_000) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** One command-API answer (option 2), retried with its request_id while the outcome is not final. */
async function commandAnswer(server: ServerProcess, bearer: string, session: Session, pendingId: string, deadline: number): Promise<{ accepted: boolean; startedAt: number }> {
  const requestId = `failover-${pendingId}`;
  while (Date.now() < deadline) {
    const startedAt = Date.now();
    const listed = await get(server, '/api/v1/pending-interactions', bearer).catch(() => undefined);
    const interaction = (listed?.body.pending_interactions as Array<{ worker_id: string; pending_id: string; meta: { decision?: { decision_ref: string } } }> | undefined)?.find(
      (item) => item.worker_id === session.id,
    );
    if (listed?.status === 200 && interaction?.pending_id !== pendingId) return { accepted: false, startedAt };
    const decisionRef = interaction?.meta.decision?.decision_ref;
    if (decisionRef) {
      const sent = await post(server, '/api/v1/commands', bearer, {
        schema_version: 1,
        action: 'answer_decision',
        request_id: requestId,
        dry_run: false,
        target: { worker_id: session.id },
        params: { decision_ref: decisionRef, selection: { option_refs: ['2'] } },
      }).catch(() => undefined);
      const disposition = sent?.body.disposition;
      if (sent?.status === 200 && sent.body.status === 'accepted') return { accepted: true, startedAt };
      if (disposition === 'terminal_rejected' || disposition === 'terminal_uncertain') return { accepted: false, startedAt };
    }
    await delay(250);
  }
  return { accepted: false, startedAt: Date.now() };
}

/** One REST, GraphQL or MCP answer, retried while the surface says "retry" (503, a rolled-back delivery). */
async function surfaceAnswer(
  surface: Surface,
  server: ServerProcess,
  bearer: string,
  mcp: McpConnection,
  pendingId: string,
  deadline: number,
): Promise<{ outcome: Outcome; startedAt: number } | undefined> {
  while (Date.now() < deadline) {
    const startedAt = Date.now();
    const outcome = await submit(surface, { baseUrl: server.baseUrl, token: bearer, mcp }, pendingId, { kind: 'answer', answers: ANSWER_OF[surface] }).catch(
      (error: unknown): Outcome => ({ kind: 'error', status: 503, code: 'UNAVAILABLE', message: String(error) }),
    );
    if (outcome.kind === 'resolved' || !isRetryable(outcome)) return { outcome, startedAt };
    await delay(250);
  }
  return undefined;
}

/**
 * Asks in `session` and races the four answering surfaces on the bundle (REST and the command API on
 * one server, GraphQL and MCP on the other), again and again until `running()` is false, recording
 * every acknowledged answer and every ask.
 */
async function race(
  servers: [ServerProcess, ServerProcess],
  bearer: string,
  session: Session,
  mcp: McpConnection,
  running: () => boolean,
  record: { acknowledged: Acknowledged[]; asked: Array<{ pendingId: string; startedAt: number; at: number }> },
): Promise<void> {
  const [first, second] = servers;
  while (running()) {
    const startedAt = Date.now();
    const asked = await post(first, '/api/v1/clarification/request', bearer, { session_id: session.id, questions: QUESTIONS }).catch(() => undefined);
    if (asked?.status !== 200 || typeof asked.body.pending_id !== 'string') {
      await delay(250);
      continue;
    }
    const pendingId = asked.body.pending_id;
    record.asked.push({ pendingId, startedAt, at: Date.now() });
    const deadline = Date.now() + SETTLE_MS;
    await Promise.all(
      ANSWERING.map(async (surface) => {
        if (surface === 'command') {
          const sent = await commandAnswer(first, bearer, session, pendingId, deadline);
          if (sent.accepted) record.acknowledged.push({ pendingId, surface, startedAt: sent.startedAt, at: Date.now(), claimed: true, answers: ANSWER_OF.command });
          return;
        }
        const server = surface === 'rest' ? first : second;
        const answered = await surfaceAnswer(surface, server, bearer, mcp, pendingId, deadline);
        if (answered?.outcome.kind === 'resolved') {
          const { envelope } = answered.outcome;
          record.acknowledged.push({ pendingId, surface, startedAt: answered.startedAt, at: Date.now(), claimed: envelope.claimed, answers: envelope.response.answers });
        }
      }),
    );
  }
}

function withoutIds(answers: Answer[]): Answer[] {
  return answers.map(({ question_id, selected_options, custom_text }) => ({ question_id, selected_options, custom_text }));
}

describe('Patroni failover: kill -9 of the leader under load on every surface', () => {
  it('every acknowledged answer survives once, one winner per bundle, blocked agents get their answer, no restart', async () => {
    const scenario: Scenario = await startScenario(cluster, 2, UNLIMITED);
    const servers = scenario.servers as [ServerProcess, ServerProcess];
    const pids = servers.map((server) => server.child.pid);
    const { bearer, sessions } = await arrange(servers[0].baseUrl, RACING_SESSIONS);
    const mcp = await connectMcp(servers[1].baseUrl, { bearer });
    const record = { acknowledged: [] as Acknowledged[], asked: [] as Array<{ pendingId: string; startedAt: number; at: number }> };
    let running = true;
    const racing = sessions.map((session) => race(servers, bearer, session, mcp, () => running, record));

    // Some rounds settle before the kill.
    await eventually(() => (record.acknowledged.length >= 8 ? true : undefined), 60_000, 'answers acknowledged before the kill');
    const before = record.acknowledged.length;
    const killedLeader = await cluster.killLeaderPostmaster();
    const killedAt = Date.now();
    const newLeader = await eventually(async () => {
      const leader = await cluster.leader();
      return leader === killedLeader ? undefined : leader;
    }, RECOVERY_BOUND_MS, 'the standby promoted');
    await delay(RACE_AFTER_KILL_MS);
    running = false;
    await Promise.all(racing);
    await mcp.close();

    // Unavailability: from the kill to the first write (an ask, or a winning answer) acknowledged of those sent after it.
    const firstWriteAfter = Math.min(
      ...record.asked.filter((ask) => ask.startedAt > killedAt).map((ask) => ask.at),
      ...record.acknowledged.filter((ack) => ack.startedAt > killedAt && ack.claimed).map((ack) => ack.at),
    );
    const windowMs = firstWriteAfter - killedAt;
    process.stdout.write(
      `patroni failover: ${killedLeader} → ${newLeader}; ${record.asked.length} bundles raced, ${record.acknowledged.length} answers acknowledged ` +
        `(${before} before the kill); first acknowledged write ${windowMs} ms after the kill\n`,
    );
    expect(windowMs).toBeLessThan(RECOVERY_BOUND_MS);
    expect(record.acknowledged.filter((ack) => ack.at > killedAt + windowMs).length).toBeGreaterThan(0);

    // Every acknowledged answer is its bundle's answer in the database, with exactly one won row; no two winners.
    const raced = [...new Set(record.acknowledged.map((ack) => ack.pendingId))];
    for (const pendingId of raced) {
      const rows = await cluster.query<{ outcome: string }>(`SELECT outcome FROM clarification_audit WHERE pending_id = $1 AND outcome = 'won'`, [pendingId]);
      const stored = await get(servers[1], `/api/v1/clarification/${pendingId}`, bearer);
      const acks = record.acknowledged.filter((ack) => ack.pendingId === pendingId);
      const stillStored = withoutIds((stored.body.response as { answers: Answer[] }).answers);
      expect({ pendingId, status: stored.body.status, won: rows.length }).toEqual({ pendingId, status: 'answered', won: 1 });
      expect(acks.filter((ack) => ack.claimed).length).toBeLessThanOrEqual(1);
      for (const ack of acks) expect({ pendingId, surface: ack.surface, answers: stillStored }).toEqual({ pendingId, surface: ack.surface, answers: withoutIds(ack.answers) });
    }

    // Served again with no restart: /readyz, every kind of request, one LISTEN connection each, the pool
    // bounded; the agents blocked on the first server before the kill get the answer given now on the second.
    await expectRecovered(cluster, scenario, killedAt + windowMs, servers[1]);
    expect(servers.map((server) => server.child.pid)).toEqual(pids);
    for (const server of servers) {
      expect(server.child.exitCode).toBeNull();
      expect(server.output.stderr).not.toMatch(/Unhandled 'error' event|uncaught/i);
      expect(logLines(server.output.stderr, 'fatal')).toEqual([]);
    }
    await stopScenario(scenario);
  }, 300_000);
});

describe('Patroni: the synchronous standby stopped', () => {
  let server: ServerProcess;
  let standby: MemberName;

  async function askOne(): Promise<string> {
    const ok = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const parsed = (await response.json()) as Record<string, unknown>;
      if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
      return parsed;
    };
    const workspace = await ok('POST', '/api/v1/workspaces', { name: 'standby stopped' });
    const task = await ok('POST', '/api/v1/tasks', { title: 'standby stopped', workspace_id: workspace.id });
    const session = await ok('POST', `/api/v1/tasks/${String(task.id)}/sessions`, {});
    await ok('PATCH', `/api/v1/sessions/${String(session.id)}`, { state: 'RUNNING' });
    await ok('POST', `/api/v1/sessions/${String(session.id)}/turns`);
    return String((await ok('POST', '/api/v1/clarification/request', { session_id: session.id, questions: QUESTIONS })).pending_id);
  }

  async function respond(pendingId: string, customText: string): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
    const startedAt = Date.now();
    const response = await fetch(`${server.baseUrl}/api/v1/clarification/${pendingId}/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answers: [{ question_id: 'q', selected_options: ['yes'], custom_text: customText }] }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, ms: Date.now() - startedAt };
  }

  it('answers are never acknowledged while no standby has them: 503 "outcome not known" at the bound, or on a cancelled wait; retries settle once it is back', async () => {
    await cluster.healthy(120_000);
    // A short statement bound, so the wait's end is seen quickly.
    server = launchServer({ dataDir: await tempDir(), port: await freePort(), env: { DATABASE_URL: cluster.url, DB_STATEMENT_TIMEOUT_MS: '6000', DB_POOL_SIZE: '20' } });
    await waitHealthy(server);
    const [bounded, cancelled] = [await askOne(), await askOne()];
    const leader = await cluster.leader();
    standby = leader === 'node1' ? 'node2' : 'node1';

    await cluster.stopMember(standby);
    await eventually(async () => ((await cluster.members()).find((member) => member.name === standby)?.state === 'running' ? undefined : true), 30_000, 'the standby stopped');

    // An operator cancels a COMMIT waiting for the standby: PostgreSQL reports it committed (with a WARNING); Parley does not.
    const waiting = respond(cancelled, 'cancelled');
    await eventually(
      async () => ((await cluster.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND query = 'COMMIT'`)).length === 1 ? true : undefined),
      5_000,
      'the COMMIT waiting for the standby',
    );
    const [{ cancelled: done }] = await cluster.query<{ cancelled: boolean }>(
      `SELECT bool_and(pg_cancel_backend(pid)) AS cancelled FROM pg_stat_activity
        WHERE wait_event = 'SyncRep' AND query = 'COMMIT'`,
    );
    expect(done).toBe(true);
    const first = await waiting;
    expect({ status: first.status, error: first.body.error, code: first.body.code }).toEqual({ status: 503, ...OUTCOME_UNKNOWN });

    // Held at COMMIT until the statement bound, then "not known" — the transaction waits on the leader, invisible.
    const second = await respond(bounded, 'bounded');
    expect({ status: second.status, error: second.body.error, code: second.body.code }).toEqual({ status: 503, ...OUTCOME_UNKNOWN });
    expect(second.ms).toBeGreaterThanOrEqual(5_000);
    // Not visible either: the leader holds the transaction until a standby has its COMMIT.
    const [held] = await cluster.query<{ active: boolean }>(`SELECT active FROM clarification_bundles WHERE pending_id = $1`, [bounded]);
    expect(held?.active).toBe(true);

    cluster.startMember(standby);
    await cluster.healthy(120_000);

    // Each retry settles: the answer that was held (now committed and replicated) is replayed, with one won row.
    for (const [pendingId, text] of [
      [bounded, 'bounded'],
      [cancelled, 'cancelled'],
    ] as const) {
      const retried = await eventually(async () => {
        const result = await respond(pendingId, text);
        return result.status === 200 ? result : undefined;
      }, 30_000, `the retry of ${pendingId}`);
      expect(retried.body).toMatchObject({ status: 'answered', response: { answers: [{ question_id: 'q', selected_options: ['yes'], custom_text: text }] } });
      const won = await cluster.query(`SELECT 1 FROM clarification_audit WHERE pending_id = $1 AND outcome = 'won'`, [pendingId]);
      expect(won).toHaveLength(1);
      const onStandby = await eventually(
        async () => {
          const won = await cluster.queryMember(standby, `SELECT 1 FROM clarification_audit WHERE pending_id = $1 AND outcome = 'won'`, [pendingId]);
          const [bundle] = await cluster.queryMember<{ active: boolean }>(standby, `SELECT active FROM clarification_bundles WHERE pending_id = $1`, [pendingId]);
          return won.length === 1 && bundle?.active === false ? true : undefined;
        },
        10_000,
        `${pendingId} answered on the standby`,
      );
      expect(onStandby).toBe(true);
    }
    expect(server.child.exitCode).toBeNull();
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
  }, 300_000);
});
