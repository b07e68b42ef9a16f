/**
 * Spec 002 R3 across all three answering surfaces: the GraphQL `answerQuestion` / `rejectQuestion`
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
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from './support/app.js';
import { eventually } from './support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from './support/fixtures.js';
import { gql } from './support/graphql.js';
import { connectMcp, type McpConnection } from './support/mcp.js';

type Surface = 'graphql' | 'rest' | 'mcp';
const SURFACES: Surface[] = ['graphql', 'rest', 'mcp'];
const ROUNDS = 24;
const WAITER_ROUNDS = 6;

interface Answer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

/** Every surface's result, in one (snake_case) shape. */
interface Envelope {
  claimed: boolean;
  status: string;
  response: { answers: Answer[]; rejected: boolean; reject_reason: string };
}

type Submission = { kind: 'answer'; answers: Answer[] } | { kind: 'reject'; reason: string };

/** Each surface's own (different) answer, already in N3a form. */
const ANSWERS: Record<Surface, Answer[]> = {
  graphql: [
    { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: '' },
    { question_id: 'q2', selected_options: [], custom_text: 'from graphql' },
  ],
  rest: [
    { question_id: 'db', selected_options: ['pg'], custom_text: '' },
    { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'from the browser' },
  ],
  mcp: [
    { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
    { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'from the agent' },
  ],
};

const RESOLUTION = 'claimed status response { answers { questionId selectedOptions customText } rejected rejectReason }';
const ANSWER = `mutation($pendingId: String!, $answers: [AnswerInput!]!) { answerQuestion(pendingId: $pendingId, answers: $answers) { ${RESOLUTION} } }`;
const REJECT = `mutation($pendingId: String!, $reason: String) { rejectQuestion(pendingId: $pendingId, reason: $reason) { ${RESOLUTION} } }`;

interface GqlResolution {
  claimed: boolean;
  status: string;
  response: { answers: Array<{ questionId: string; selectedOptions: string[]; customText: string }>; rejected: boolean; rejectReason: string };
}

function fromGraphql(resolution: GqlResolution): Envelope {
  return {
    claimed: resolution.claimed,
    status: resolution.status,
    response: {
      answers: resolution.response.answers.map((answer) => ({
        question_id: answer.questionId,
        selected_options: answer.selectedOptions,
        custom_text: answer.customText,
      })),
      rejected: resolution.response.rejected,
      reject_reason: resolution.response.rejectReason,
    },
  };
}

/** What the winner's envelope must say, given what it submitted. */
function winnerEnvelope(submission: Submission): Envelope {
  return submission.kind === 'answer'
    ? { claimed: true, status: 'answered', response: { answers: submission.answers, rejected: false, reject_reason: '' } }
    : { claimed: true, status: 'rejected', response: { answers: [], rejected: true, reject_reason: submission.reason } };
}

/** R2b: the losers' replay — the winner's status and answers; a reject reason is never replayed. */
function replayOf(winner: Envelope): Envelope {
  return { claimed: false, status: winner.status, response: { ...winner.response, reject_reason: '' } };
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

  async function freshBundle(): Promise<{ sessionId: string; pendingId: string; agentToken: string }> {
    const fixture = await createRunningSession(t, { bearer: token });
    const res = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${token}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    return { sessionId: fixture.sessionId, pendingId: res.body.pending_id as string, agentToken: fixture.agentToken };
  }

  /** Submits through one surface and returns its envelope (a non-success is a test failure). */
  async function submit(surface: Surface, pendingId: string, submission: Submission): Promise<Envelope> {
    if (surface === 'graphql') {
      const result =
        submission.kind === 'answer'
          ? await gql<{ answerQuestion: GqlResolution }>(
              t,
              ANSWER,
              {
                pendingId,
                answers: submission.answers.map((answer) => ({
                  questionId: answer.question_id,
                  selectedOptions: answer.selected_options,
                  customText: answer.custom_text,
                })),
              },
              token,
            )
          : await gql<{ rejectQuestion: GqlResolution }>(t, REJECT, { pendingId, reason: submission.reason }, token);
      if (result.status !== 200 || result.body.errors || !result.body.data) throw new Error(`graphql failed: ${JSON.stringify(result.body)}`);
      const data = result.body.data as { answerQuestion?: GqlResolution; rejectQuestion?: GqlResolution };
      return fromGraphql((data.answerQuestion ?? data.rejectQuestion) as GqlResolution);
    }
    if (surface === 'rest') {
      const body = submission.kind === 'answer' ? { answers: submission.answers } : { rejected: true, reject_reason: submission.reason };
      const res = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${token}`).send(body);
      if (res.status !== 200) throw new Error(`rest failed: ${res.status} ${res.text}`);
      const { success, ...envelope } = res.body as Envelope & { success: boolean };
      expect(success).toBe(true);
      return envelope;
    }
    const args =
      submission.kind === 'answer'
        ? { pending_id: pendingId, answers: submission.answers }
        : { pending_id: pendingId, rejected: true, reason: submission.reason };
    const outcome = await mcp.call('answer_question_kandev', args);
    if (outcome.isError) throw new Error(`mcp failed: ${outcome.text}`);
    return JSON.parse(outcome.text) as Envelope;
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
    const { pendingId, agentToken } = await freshBundle();
    const submissions = Object.fromEntries(
      SURFACES.map((surface) => [
        surface,
        surface === options.rejecter ? { kind: 'reject', reason: `declined over ${surface} in round ${options.round}` } : { kind: 'answer', answers: ANSWERS[surface] },
      ]),
    ) as Record<Surface, Submission>;

    // The live waiter is the session's agent (its agent token): its wait consumes the answer (issue 9 §1c).
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
