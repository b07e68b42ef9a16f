import request from 'supertest';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { answerRequest, command, decisionRefOf } from '../../support/decisions.js';
import { browserHeaders, createRunningSession, createUser, freshBundle, signIn, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql, gqlData, subscribe } from '../../support/graphql.js';
import { eventually } from '../../support/eventually.js';
import { connectMcp } from '../../support/mcp.js';

/**
 * A resolved bundle reports who won — the caller, the surface, the time —
 * in GET /clarification/:id (`resolved_by`, beside R12's `response`), GraphQL `question`, the
 * ANSWERED/REJECTED event payload (and the subscription), recorded by the claim itself.
 */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'go' },
];
const ONE_QUESTION = [{ id: 'db', prompt: 'Which database?', options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] }];

interface ResolvedBy {
  kind: string;
  user_id: string | null;
  name: string | null;
  surface: string;
  at: string;
}

describe('who answered', () => {
  let t: TestApp;
  let alice: { id: string; token: string };
  const admin = `Bearer ${TEST_ADMIN_TOKEN}`;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', ...QUIET_LEASE } });
    alice = await createUser(t, 'alice');
  });
  afterAll(async () => {
    await t.close();
  });

  /** Who won, as GET, GraphQL question and the stored event each report it — they must agree. */
  async function reportedWinner(pendingId: string): Promise<ResolvedBy> {
    const got = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${alice.token}`).expect(200);
    const resolvedBy = got.body.resolved_by as ResolvedBy;
    expect(resolvedBy.at).toMatch(ISO);
    // R12's envelope is untouched: resolved_by is a sibling of `response`, not one of its keys.
    expect(Object.keys(got.body.response as object).sort()).toEqual(['answers', 'reject_reason', 'rejected']);

    const data = await gqlData<{ question: { resolvedBy: Record<string, unknown> } }>(
      t,
      `query ($id: String!) { question(pendingId: $id) { resolvedBy { kind userId name surface at } } }`,
      { id: pendingId },
      alice.token,
    );
    expect(data.question.resolvedBy).toEqual({
      kind: resolvedBy.kind,
      userId: resolvedBy.user_id,
      name: resolvedBy.name,
      surface: resolvedBy.surface,
      at: resolvedBy.at,
    });

    const { rows } = await t.db.query<{ type: string; payload: { resolved_by: { at: string } & Record<string, unknown> } }>(
      `SELECT type, payload FROM question_events WHERE pending_id = $1 AND type IN ('ANSWERED', 'REJECTED')`,
      [pendingId],
    );
    expect(rows).toHaveLength(1);
    const stored = rows[0].payload.resolved_by;
    expect({ ...stored, at: new Date(stored.at).toISOString() }).toEqual(resolvedBy);
    return resolvedBy;
  }

  it('nobody while pending: resolved_by is null in GET and GraphQL', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const got = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${alice.token}`).expect(200);
    expect(got.body).toMatchObject({ status: 'pending', response: null, resolved_by: null, expires_at: null });
    const data = await gqlData<{ question: { resolvedBy: unknown } }>(t, `query ($id: String!) { question(pendingId: $id) { resolvedBy { kind } } }`, { id: pendingId }, alice.token);
    expect(data.question.resolvedBy).toBeNull();
  });

  it('rest: a user answering over REST is reported by id and name', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const before = Date.now();
    await request(t.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .set('authorization', `Bearer ${alice.token}`)
      .send({ answers: ANSWERS })
      .expect(200);
    const winner = await reportedWinner(pendingId);
    expect(winner).toEqual({ kind: 'user', user_id: alice.id, name: 'alice', surface: 'rest', at: winner.at });
    expect(Date.parse(winner.at)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('web: the inbox page (browser session + X-Parley-Surface: web) is recorded as web', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const cookie = await signIn(t, alice.token);
    await request(t.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .set(browserHeaders(t, cookie))
      .set('x-parley-surface', 'web')
      .send({ rejected: true, reject_reason: 'User skipped' })
      .expect(200);
    expect(await reportedWinner(pendingId)).toMatchObject({ kind: 'user', user_id: alice.id, name: 'alice', surface: 'web' });
  });

  it('an X-Parley-Surface other than web or rest is a 400 naming the header, and answers nothing', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const res = await request(t.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .set('authorization', `Bearer ${alice.token}`)
      .set('x-parley-surface', 'mcp')
      .send({ answers: ANSWERS })
      .expect(400);
    expect(res.body).toEqual({ error: 'x-parley-surface must be "web" or "rest"', code: 'VALIDATION_ERROR' });
    const got = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${alice.token}`).expect(200);
    expect(got.body).toMatchObject({ status: 'pending', resolved_by: null });
  });

  it('mcp: the admin answering through answer_question_kandev is reported as admin (no user)', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const client = await connectMcp(t.baseUrl, { bearer: TEST_ADMIN_TOKEN });
    try {
      const result = await client.call('answer_question_kandev', { pending_id: pendingId, answers: ANSWERS });
      expect(result.structured).toMatchObject({ claimed: true });
    } finally {
      await client.close();
    }
    expect(await reportedWinner(pendingId)).toMatchObject({ kind: 'admin', user_id: null, name: null, surface: 'mcp' });
  });

  it('graphql: a rejection through rejectQuestion is reported with its REJECTED event', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const data = await gqlData<{ rejectQuestion: { claimed: boolean } }>(
      t,
      `mutation ($id: String!) { rejectQuestion(pendingId: $id, reason: "not now") { claimed } }`,
      { id: pendingId },
      alice.token,
    );
    expect(data.rejectQuestion.claimed).toBe(true);
    expect(await reportedWinner(pendingId)).toMatchObject({ kind: 'user', user_id: alice.id, surface: 'graphql' });
  });

  it('command: a connector command (answer_decision) is reported as the command surface', async () => {
    const { pendingId, sessionId } = await freshBundle(t, { bearer: alice.token, questions: ONE_QUESTION });
    const decisionRef = await decisionRefOf(t, sessionId, alice.token);
    const result = await command(t, answerRequest(sessionId, decisionRef, { requestId: 'who-answered-1' }), alice.token);
    expect(result.body.status).toBe('accepted');
    expect(await reportedWinner(pendingId)).toMatchObject({ kind: 'user', user_id: alice.id, name: 'alice', surface: 'command' });
  });

  it('a loser does not change who won: the first answer stays reported after a replay from another surface', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${alice.token}`).send({ answers: ANSWERS }).expect(200);
    const first = await reportedWinner(pendingId);
    const replay = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', admin).send({ rejected: true }).expect(200);
    expect(replay.body.claimed).toBe(false);
    expect(await reportedWinner(pendingId)).toEqual(first);
  });

  it('the GraphQL subscription carries resolvedBy on ANSWERED', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const feed = subscribe<{ questionEvents: { type: string; pendingId: string; resolvedBy: Record<string, unknown> | null } }>(
      t,
      `subscription { questionEvents { type pendingId resolvedBy { kind userId name surface } } }`,
      { connectionParams: { authorization: `Bearer ${alice.token}` } },
    );
    try {
      await feed.connected;
      await gqlData(t, `mutation ($id: String!) { rejectQuestion(pendingId: $id) { claimed } }`, { id: pendingId }, alice.token);
      const event = await eventually(() => feed.events.find((one) => one.questionEvents.pendingId === pendingId && one.questionEvents.type === 'REJECTED'));
      expect(event.questionEvents).toEqual({
        type: 'REJECTED',
        pendingId,
        resolvedBy: { kind: 'user', userId: alice.id, name: 'alice', surface: 'graphql' },
      });
    } finally {
      await feed.close();
    }
  });

  it('a winner rolled back (its agent could not be resumed) is forgotten: pending again, resolved_by null, rows clean', async () => {
    const fixture = await createRunningSession(t, { bearer: alice.token, resumeUrl: 'http://127.0.0.1:9/refused' });
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${alice.token}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    const pendingId = asked.body.pending_id as string;
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${alice.token}`).send({ answers: ANSWERS }).expect(500);
    const got = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${alice.token}`).expect(200);
    expect(got.body).toMatchObject({ status: 'pending', resolved_by: null });
    const { rows } = await t.db.query(`SELECT metadata FROM task_session_messages WHERE metadata->>'pending_id' = $1`, [pendingId]);
    rows.forEach((row: { metadata: Record<string, unknown> }) => expect(row.metadata).not.toHaveProperty('resolved_by'));
  });
});

describe('who answered with authentication disabled', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: QUIET_LEASE });
  });
  afterAll(async () => {
    await t.close();
  });

  it('the synthetic caller: kind synthetic, no user', async () => {
    const fixture = await createRunningSession(t);
    const asked = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    const pendingId = asked.body.pending_id as string;
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);
    const got = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200);
    expect(got.body.resolved_by).toEqual({ kind: 'synthetic', user_id: null, name: null, surface: 'rest', at: expect.stringMatching(ISO) });
    const unknownHeader = await gql(t, `query ($id: String!) { question(pendingId: $id) { resolvedBy { surface } } }`, { id: pendingId });
    expect(unknownHeader.body.data).toEqual({ question: { resolvedBy: { surface: 'rest' } } });
  });
});
