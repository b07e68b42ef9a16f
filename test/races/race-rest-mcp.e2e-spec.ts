/**
 * R3 — the cross-entry-point race: a REST `POST /api/v1/clarification/:id/respond` (the web
 * UI) and an MCP `answer_question_kandev` (an external agent) fired concurrently at the same fresh
 * bundle, through one real server on separate HTTP connections, against PostgreSQL.
 *
 * Every round asserts: exactly one claimed:true; the other a claimed:false success carrying the
 * winner's status and answers (R2/R2b); the rows hold only the winner's outcome (no overwrite); one
 * winner event and — with no live waiter — exactly one resume for an answered winner, none for a
 * rejection (R4, R9); with a live long-poll waiter, exactly one delivery wakes it with the winner's
 * answer (R7) and nothing is resumed.
 */
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/app.js';
import { eventually } from '../support/eventually.js';
import { freshBundle } from '../support/fixtures.js';
import { lifecycleCounts, lifecycleMoved, questionEventsOf } from '../support/lifecycle-events.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';

const ROUNDS = 20;
const WAITER_ROUNDS = 10;
/** How long the REST call waits before firing, by round: from "REST first" to "MCP well ahead". */
const SKEWS_MS = [0, 2, 4, 6, 8, 12, 16, 25];

interface Answer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

interface Envelope {
  claimed: boolean;
  status: string;
  response: { answers: Answer[]; rejected: boolean; reject_reason: string };
  receipt: string | null;
}

/** The web UI's answer: PostgreSQL, "from the browser". */
const REST_ANSWERS: Answer[] = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'from the browser' },
];

/** The external agent's (different) answer: SQLite, "from the agent". */
const MCP_ANSWERS: Answer[] = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'from the agent' },
];

type McpOutcome = { kind: 'answer' } | { kind: 'reject'; reason: string };

/** What a caller submitted, as the winner's envelope must report it. */
function expectedWinner(surface: 'rest' | 'mcp', mcpOutcome: McpOutcome): Envelope {
  if (surface === 'rest') {
    return { claimed: true, status: 'answered', response: { answers: REST_ANSWERS, rejected: false, reject_reason: '' }, receipt: expect.any(String) as string };
  }
  if (mcpOutcome.kind === 'answer') {
    return { claimed: true, status: 'answered', response: { answers: MCP_ANSWERS, rejected: false, reject_reason: '' }, receipt: expect.any(String) as string };
  }
  return { claimed: true, status: 'rejected', response: { answers: [], rejected: true, reject_reason: mcpOutcome.reason }, receipt: expect.any(String) as string };
}

/** R2b: a loser's replay — same status, answers and receipt (the very same one); a reject reason is never replayed. */
function replayOf(winner: Envelope): Envelope {
  return { claimed: false, status: winner.status, response: { ...winner.response, reject_reason: '' }, receipt: winner.receipt };
}

describe('R3: REST respond vs MCP answer_question_kandev racing on one bundle', () => {
  let t: TestApp;
  let owner: { id: string; token: string };
  let mcp: McpConnection;
  const wins = { rest: 0, mcp: 0 };

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    const admin = `Bearer ${TEST_ADMIN_TOKEN}`;
    const user = await request(t.baseUrl).post('/api/v1/admin/users').set('authorization', admin).send({ name: 'racer' }).expect(201);
    const token = await request(t.baseUrl).post(`/api/v1/admin/users/${user.body.id}/tokens`).set('authorization', admin).send({}).expect(201);
    owner = { id: user.body.id, token: token.body.token };
    mcp = await connectMcp(t.baseUrl, { bearer: owner.token });
  });

  afterAll(async () => {
    // Information only: which entry point won is timing, not a rule (R3 asks for one winner).
    process.stdout.write(`R3 REST vs MCP winners (information only): ${JSON.stringify(wins)}\n`);
    await mcp.close();
    await t.close();
  });

  /**
   * Both callers at once: REST through fetch, MCP through the SDK client (each its own HTTP request
   * and connection). `restDelayMs` skews the start so that either entry point can reach the claim first.
   */
  async function race(pendingId: string, mcpOutcome: McpOutcome, restDelayMs: number): Promise<{ rest: Envelope; mcp: Envelope }> {
    const restCall = new Promise((resolve) => setTimeout(resolve, restDelayMs)).then(() => fetch(`${t.baseUrl}/api/v1/clarification/${pendingId}/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
      body: JSON.stringify({ answers: REST_ANSWERS }),
    })).then(async (response) => {
      const body = (await response.json()) as Envelope & { success?: boolean };
      expect({ status: response.status, success: body.success }).toEqual({ status: 200, success: true });
      const { success: _success, ...envelope } = body;
      return envelope;
    });
    const mcpArgs =
      mcpOutcome.kind === 'answer'
        ? { pending_id: pendingId, answers: MCP_ANSWERS }
        : { pending_id: pendingId, rejected: true, reason: mcpOutcome.reason };
    const mcpCall = mcp.call('answer_question_kandev', mcpArgs).then((outcome) => {
      if (outcome.isError) throw new Error(`MCP answer failed: ${outcome.text}`);
      const envelope = JSON.parse(outcome.text) as Envelope;
      expect(outcome.structured).toEqual(envelope);
      return envelope;
    });
    const before = await lifecycleCounts(t);
    const [rest, viaMcp] = await Promise.all([restCall, mcpCall]);
    // Only the winner publishes: one final answer, one transcript update — nothing from the loser.
    const moved = await lifecycleMoved(t, before);
    const { 'session.message.updated': messages, ...finals } = moved;
    expect(messages).toBe(1);
    expect(Object.values(finals)).toEqual([1]);
    expect(Object.keys(finals)[0]).toMatch(/^clarification\.(primary_answered|stale_dismissed)$/);
    return { rest, mcp: viaMcp };
  }

  /** Exactly one winner; the loser replays it; returns the winning surface and envelope. */
  function judge(outcome: { rest: Envelope; mcp: Envelope }, mcpOutcome: McpOutcome): { surface: 'rest' | 'mcp'; winner: Envelope } {
    const claimed = [outcome.rest.claimed, outcome.mcp.claimed];
    expect(claimed.filter(Boolean)).toHaveLength(1);
    const surface = outcome.rest.claimed ? 'rest' : 'mcp';
    const winner = expectedWinner(surface, mcpOutcome);
    expect(surface === 'rest' ? outcome.rest : outcome.mcp).toEqual(winner);
    expect(surface === 'rest' ? outcome.mcp : outcome.rest).toEqual(replayOf(winner));
    wins[surface] += 1;
    return { surface, winner };
  }

  /** The rows carry exactly the winner's outcome, delivery is settled, and the session runs again. */
  async function assertRows(pendingId: string, sessionId: string, winner: Envelope): Promise<void> {
    const { rows } = await t.db.query<{ metadata: Record<string, unknown> }>(
      `SELECT metadata FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'
        ORDER BY (metadata->>'question_index')::int`,
      [pendingId],
    );
    expect(rows.map((row) => row.metadata.status)).toEqual([winner.status, winner.status]);
    if (winner.status === 'answered') {
      expect(rows.map((row) => row.metadata.response)).toEqual(winner.response.answers);
    } else {
      expect(rows.map((row) => 'response' in row.metadata)).toEqual([false, false]);
    }
    expect(rows.map((row) => row.metadata.response_delivery_pending)).toEqual([undefined, undefined]);
    const session = await t.db.query<{ state: string }>(`SELECT state FROM task_sessions WHERE id = $1`, [sessionId]);
    expect(session.rows[0]?.state).toBe('RUNNING');
    // One final question event for the bundle, the winner's.
    expect((await questionEventsOf(t.db, pendingId)).filter((event) => event.type === 'ANSWERED' || event.type === 'REJECTED').map((event) => event.type)).toEqual([
      winner.status === 'answered' ? 'ANSWERED' : 'REJECTED',
    ]);
  }

  async function resumesOf(pendingId: string): Promise<{ prompts: Array<{ content: string; response: unknown }>; turns: number }> {
    const prompts = await t.db.query<{ content: string; response: unknown }>(
      `SELECT content, metadata->'response' AS response FROM task_session_messages WHERE type = 'resume_prompt'
        AND task_session_id IN (SELECT task_session_id FROM task_session_messages WHERE metadata->>'pending_id' = $1)`,
      [pendingId],
    );
    const turns = await t.db.query<{ n: string }>(`SELECT count(*) AS n FROM task_session_turns WHERE metadata->>'resume_of' = $1`, [pendingId]);
    return { prompts: prompts.rows, turns: Number(turns.rows[0]?.n) };
  }

  it(`${ROUNDS} rounds with no live waiter: one winner, the loser replays it, no overwrite, exactly one resume per answered bundle`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const { sessionId, pendingId } = await freshBundle(t, { bearer: owner.token });
      const mcpOutcome: McpOutcome = round % 2 === 0 ? { kind: 'answer' } : { kind: 'reject', reason: `round ${round}: not needed` };
      const { winner } = judge(await race(pendingId, mcpOutcome, SKEWS_MS[round % SKEWS_MS.length]), mcpOutcome);
      await assertRows(pendingId, sessionId, winner);

      const resumed = await resumesOf(pendingId);
      if (winner.status === 'answered') {
        // Exactly one resume, carrying the winner's answers (never the loser's).
        expect(resumed.turns).toBe(1);
        expect(resumed.prompts).toHaveLength(1);
        expect((resumed.prompts[0]?.response as { answers: Answer[] }).answers).toEqual(winner.response.answers);
        const winnerText = winner.response.answers[1]?.custom_text;
        const loserText = winnerText === 'from the browser' ? 'from the agent' : 'from the browser';
        expect(resumed.prompts[0]?.content).toContain(winnerText);
        expect(resumed.prompts[0]?.content).not.toContain(loserText);
      } else {
        // R9: a rejection with no live waiter is dismissed, not resumed.
        expect(resumed).toEqual({ prompts: [], turns: 0 });
      }

      // A late third answer (either surface) is a replay and changes nothing.
      const late = await mcp.call('answer_question_kandev', { pending_id: pendingId, rejected: true });
      expect(JSON.parse(late.text)).toEqual(replayOf(winner));
      expect((await resumesOf(pendingId)).turns).toBe(resumed.turns);
    }
  });

  it(`${WAITER_ROUNDS} rounds with a live agent waiter (GET /:id/wait): exactly one delivery wakes it with the winner's answer, nothing is resumed`, async () => {
    const waiters = t.app.get(WaiterStore);
    for (let round = 0; round < WAITER_ROUNDS; round += 1) {
      const { sessionId, pendingId, agentToken } = await freshBundle(t, { bearer: owner.token });
      const woken: unknown[] = [];
      // The session's agent waits (its agent token): its wait consumes the answer.
      const wait = fetch(`${t.baseUrl}/api/v1/clarification/${pendingId}/wait`, {
        headers: { authorization: `Bearer ${agentToken}` },
      }).then(async (response) => {
        const body = (await response.json()) as Record<string, unknown>;
        woken.push(body);
        return { status: response.status, body };
      });
      await eventually(() => (waiters.waiterCount(pendingId) >= 1 ? true : undefined), 5000, 'the waiter attached');

      const mcpOutcome: McpOutcome = round % 2 === 0 ? { kind: 'answer' } : { kind: 'reject', reason: `round ${round}: skip it` };
      const { winner } = judge(await race(pendingId, mcpOutcome, SKEWS_MS[round % SKEWS_MS.length]), mcpOutcome);
      const delivered = await wait;
      expect(delivered.status).toBe(200);
      expect(delivered.body).toMatchObject({
        pending_id: pendingId,
        answers: winner.response.answers,
        rejected: winner.response.rejected,
        // The live waiter hears the winner's own reason (R9); only a loser's replay blanks it.
        reject_reason: winner.response.reject_reason,
      });
      expect(woken).toHaveLength(1);
      await assertRows(pendingId, sessionId, winner);
      expect(await resumesOf(pendingId)).toEqual({ prompts: [], turns: 0 });
      expect(waiters.waiterCount(pendingId)).toBe(0);
    }
  });
});
