/**
 * R3 across all three answering surfaces: the GraphQL `answerQuestion` / `rejectQuestion`
 * mutations, REST `POST /api/v1/clarification/:id/respond` and MCP `answer_question_kandev` (the MCP
 * SDK client on /mcp) fired concurrently at the same fresh bundle, round after round, through one
 * real server and PostgreSQL. Every surface resolves through ResolveBundle, so in every round:
 * exactly one claimed:true; the two losers a claimed:false success carrying the winner's status and
 * answers (R2/R2b); the rows hold the winner's outcome only; one winner event in the durable feed;
 * and exactly one resume for an answered winner without a live waiter (none for a rejection), or
 * exactly one delivery to a live waiter.
 */
import request from 'supertest';
import { QuestionEventService, WaiterStore } from '#clarification';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/app.js';
import { eventually } from '../support/eventually.js';
import { freshBundle } from '../support/fixtures.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';
import { ANSWERS, type Envelope, type Submission, submit as submitThrough, type Surface } from '../support/surfaces.js';

const SURFACES: Surface[] = ['graphql', 'rest', 'mcp'];
const ROUNDS = 24;
const WAITER_ROUNDS = 6;

/** What the winner's envelope must say, given what it submitted. */
function winnerEnvelope(submission: Submission): Envelope {
  return submission.kind === 'answer'
    ? { claimed: true, status: 'answered', response: { answers: submission.answers, rejected: false, reject_reason: '' }, receipt: expect.any(String) as string }
    : { claimed: true, status: 'rejected', response: { answers: [], rejected: true, reject_reason: submission.reason }, receipt: expect.any(String) as string };
}

/** R2b: the losers' replay — the winner's status, answers and receipt (the very same one); a reject reason is never replayed. */
function replayOf(winner: Envelope): Envelope {
  return { claimed: false, status: winner.status, response: { ...winner.response, reject_reason: '' }, receipt: winner.receipt };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('R3 across GraphQL, REST and MCP: one winner per bundle', () => {
  let t: TestApp;
  let token: string;
  let mcp: McpConnection;
  const wins: Record<Surface, number> = { graphql: 0, rest: 0, mcp: 0 };

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    const admin = `Bearer ${TEST_ADMIN_TOKEN}`;
    const user = await request(t.baseUrl).post('/api/v1/admin/users').set('authorization', admin).send({ name: 'racer' }).expect(201);
    const pat = await request(t.baseUrl).post(`/api/v1/admin/users/${user.body.id}/tokens`).set('authorization', admin).send({ name: 'pat' }).expect(201);
    token = pat.body.token as string;
    mcp = await connectMcp(t.baseUrl, { bearer: token });
  });
  afterAll(async () => {
    // Information only: which surface won is timing, not a rule (R3 asks for one winner).
    process.stdout.write(`R3 three-surface winners (information only): ${JSON.stringify(wins)}\n`);
    await mcp.close();
    await t.close();
  });

  /** Submits through one surface and returns its envelope (a non-success is a test failure). */
  async function submit(surface: Surface, pendingId: string, submission: Submission): Promise<Envelope> {
    const outcome = await submitThrough(surface, { baseUrl: t.baseUrl, token, mcp }, pendingId, submission);
    if (outcome.kind !== 'resolved') throw new Error(`${surface} failed: ${JSON.stringify(outcome)}`);
    return outcome.envelope;
  }

  async function rowsOf(pendingId: string): Promise<Array<Record<string, unknown>>> {
    const { rows } = await t.db.query<{ metadata: Record<string, unknown> }>(
      `SELECT metadata FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'
        ORDER BY (metadata->>'question_index')::int, created_at, id`,
      [pendingId],
    );
    return rows.map((row) => row.metadata);
  }

  async function resumes(pendingId: string): Promise<{ prompts: number; turns: number }> {
    const prompts = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`,
      [pendingId],
    );
    const turns = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM task_session_turns WHERE metadata->>'resume_of' = $1`, [
      pendingId,
    ]);
    return { prompts: prompts.rows[0]?.n ?? -1, turns: turns.rows[0]?.n ?? -1 };
  }

  /** The resolution events recorded in the durable feed for the bundle. */
  async function winnerEvents(pendingId: string): Promise<string[]> {
    await t.app.get(QuestionEventService).flushed();
    const { rows } = await t.db.query<{ type: string }>(
      `SELECT type FROM question_events WHERE pending_id = $1 AND type IN ('ANSWERED', 'REJECTED') ORDER BY id`,
      [pendingId],
    );
    return rows.map((row) => row.type);
  }

  /**
   * One round: the three surfaces fire at once, the `lead` surface `headStartMs` ahead of the other
   * two; `rejecter`, when set, declines instead of answering; `waiter` adds a live long-poll waiter.
   */
  async function round(options: { round: number; lead: Surface; headStartMs: number; rejecter?: Surface; waiter: boolean }): Promise<void> {
    const { pendingId, agentToken } = await freshBundle(t, { bearer: token });
    const submissions = Object.fromEntries(
      SURFACES.map((surface) => [
        surface,
        surface === options.rejecter ? { kind: 'reject', reason: `declined over ${surface} in round ${options.round}` } : { kind: 'answer', answers: ANSWERS[surface] },
      ]),
    ) as Record<Surface, Submission>;

    // The live waiter is the session's agent (its agent token): its wait consumes the answer.
    const waiter = options.waiter
      ? request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).set('authorization', `Bearer ${agentToken}`).then((res) => res)
      : undefined;
    if (waiter) await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));

    const results = await Promise.all(
      SURFACES.map(async (surface) => {
        if (surface !== options.lead) await sleep(options.headStartMs);
        return [surface, await submit(surface, pendingId, submissions[surface])] as const;
      }),
    );

    const winners = results.filter(([, envelope]) => envelope.claimed);
    expect(winners.map(([surface]) => surface)).toHaveLength(1);
    const [winnerSurface, winner] = winners[0];
    wins[winnerSurface] += 1;
    const submitted = submissions[winnerSurface];
    expect(winner).toEqual(winnerEnvelope(submitted));
    for (const [surface, envelope] of results) {
      if (surface !== winnerSurface) expect(envelope).toEqual(replayOf(winner));
    }

    // The rows hold the winner's outcome, and only it.
    const rows = await rowsOf(pendingId);
    expect(rows.map((row) => row.status)).toEqual([winner.status, winner.status]);
    if (submitted.kind === 'answer') expect(rows.map((row) => row.response)).toEqual(submitted.answers);
    else expect(rows.map((row) => 'response' in row)).toEqual([false, false]);

    // One winner event; one resume for an answered winner with nobody waiting; none otherwise.
    expect(await winnerEvents(pendingId)).toEqual([submitted.kind === 'answer' ? 'ANSWERED' : 'REJECTED']);
    if (waiter) {
      const res = await waiter;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ rejected: submitted.kind === 'reject', answers: submitted.kind === 'answer' ? submitted.answers : [] });
      if (submitted.kind === 'reject') expect(res.body.reject_reason).toBe(submitted.reason);
      expect(await resumes(pendingId)).toEqual({ prompts: 0, turns: 0 });
    } else {
      expect(await resumes(pendingId)).toEqual(submitted.kind === 'answer' ? { prompts: 1, turns: 1 } : { prompts: 0, turns: 0 });
    }
  }

  it(`${ROUNDS} rounds with no live waiter (each surface leading in turn, answers and rejections mixed)`, async () => {
    for (let index = 0; index < ROUNDS; index += 1) {
      const lead = SURFACES[index % 3];
      // Every fourth round is a dead heat; otherwise the lead fires a little early.
      const headStartMs = index % 4 === 3 ? 0 : ([25, 10, 3][Math.floor(index / 3) % 3]);
      const rejecter = index % 2 === 1 ? (SURFACES[(index + 1) % 3]) : undefined;
      await round({ round: index, lead, headStartMs, ...(rejecter ? { rejecter } : {}), waiter: false });
    }
  });

  it(`${WAITER_ROUNDS} rounds with a live long-poll waiter: exactly one delivery of the winner’s outcome, no resume`, async () => {
    for (let index = 0; index < WAITER_ROUNDS; index += 1) {
      const lead = SURFACES[index % 3];
      const rejecter = index === 4 ? (SURFACES[(index + 2) % 3]) : undefined;
      await round({ round: index, lead, headStartMs: index % 2 === 0 ? 0 : 10, ...(rejecter ? { rejecter } : {}), waiter: true });
    }
  });
});
