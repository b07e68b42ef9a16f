/**
 * Who counts as the agent: delivery (the thing that consumes the answer) belongs to the
 * session's agent — its in-session ask, or a /wait authenticated with that session's agent token. Any
 * other waiter (a dashboard user's PAT) only observes: it is told the final answer, and the agent is
 * resumed all the same. With AUTH_MODE=disabled every caller is the same identity, so any /wait is the agent.
 */
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, type TestApp } from '../support/app.js';
import { eventTypes, resumePrompts, resumeTurns } from '../support/bundle-state.js';
import { QUIET_LEASE } from '../support/claim.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, createUser, type SessionFixture, TWO_QUESTIONS } from '../support/fixtures.js';
import { connectMcp } from '../support/mcp.js';
import { accept, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'from the dashboard' },
];
const CONFIG = { waitTimeoutMs: 30_000, resumeTimeoutMs: 3_000, ...QUIET_LEASE };

/** How the answer was handed over, from the ANSWERED event the winner wrote. */
async function deliveryOf(t: TestApp, pendingId: string): Promise<string | undefined> {
  const { rows } = await t.db.query<{ delivery: string }>(
    `SELECT payload->>'delivery' AS delivery FROM question_events WHERE pending_id = $1 AND type = 'ANSWERED'`,
    [pendingId],
  );
  return rows[0]?.delivery;
}

describe('observers vs the agent (AUTH_MODE=enabled)', () => {
  let t: TestApp;
  let user: { id: string; token: string };
  let webhook: WebhookReceiver;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', ...CONFIG } });
    user = await createUser(t, 'dashboard');
    webhook = await startWebhookReceiver(accept);
  });
  afterAll(async () => {
    await webhook.close();
    await t.close();
  });

  const waiters = () => t.app.get(WaiterStore);

  /** The agent asks in-session and its call is then aborted: the bundle is detached, still pending. */
  async function detachedAsk(fixture: SessionFixture): Promise<string> {
    const agent = await connectMcp(t.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' });
    try {
      const controller = new AbortController();
      const call = agent.client.callTool({ name: 'ask_user_question_kandev', arguments: { questions: TWO_QUESTIONS } }, undefined, {
        signal: controller.signal,
        timeout: 30_000,
      });
      call.catch(() => undefined);
      const pendingId = await eventually(async () => {
        const { rows } = await t.db.query<{ pending_id: string }>(`SELECT pending_id FROM clarification_bundles WHERE session_id = $1`, [
          fixture.sessionId,
        ]);
        return rows[0]?.pending_id;
      });
      await eventually(() => (waiters().waiterCount(pendingId) === 1 ? true : undefined));
      controller.abort('the agent went away');
      await eventually(async () => ((await eventTypes(t.db, pendingId)).includes('DETACHED') ? true : undefined), 5_000, 'detached');
      return pendingId;
    } finally {
      await agent.close();
    }
  }

  /** Holds GET /wait with `bearer`; resolves once the wait is attached on the server, with its eventual reply. */
  async function holdWait(pendingId: string, bearer: string): Promise<{ reply: Promise<request.Response> }> {
    const before = waiters().waiterCount(pendingId);
    const waiting = request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).set('authorization', `Bearer ${bearer}`).then((res) => res);
    await eventually(() => (waiters().waiterCount(pendingId) === before + 1 ? true : undefined), 5_000, 'the wait attached');
    return { reply: waiting };
  }

  async function answer(pendingId: string): Promise<void> {
    const res = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${user.token}`).send({ answers: ANSWERS });
    expect({ status: res.status, claimed: res.body.claimed }).toEqual({ status: 200, claimed: true });
  }

  it('a dashboard holding /wait with its PAT observes: the agent is resumed through its webhook AND the dashboard gets the final answer', async () => {
    const fixture = await createRunningSession(t, { bearer: user.token, resumeUrl: webhook.url });
    const pendingId = await detachedAsk(fixture);
    const dashboard = await holdWait(pendingId, user.token);

    await answer(pendingId);

    const told = await dashboard.reply;
    expect(told.status).toBe(200);
    expect(told.body).toMatchObject({ pending_id: pendingId, answers: ANSWERS, rejected: false });
    const [successor] = await resumeTurns(t.db, pendingId);
    expect(webhook.postsFor(pendingId).map((post) => [post.idempotencyKey, post.status])).toEqual([[successor, 202]]);
    expect(await deliveryOf(t, pendingId)).toBe('resumed');
  });

  it('the same with no webhook configured: the resume prompt is queued AND the dashboard gets the final answer', async () => {
    const fixture = await createRunningSession(t, { bearer: user.token });
    const pendingId = await detachedAsk(fixture);
    const dashboard = await holdWait(pendingId, user.token);

    await answer(pendingId);

    expect((await dashboard.reply).body).toMatchObject({ pending_id: pendingId, answers: ANSWERS });
    const [successor] = await resumeTurns(t.db, pendingId);
    expect(await resumePrompts(t.db, pendingId)).toEqual([successor]);
    expect(await deliveryOf(t, pendingId)).toBe('resumed');
  });

  it('the same /wait with the session’s agent token is the agent: it consumes the answer — no resume, no prompt — and an observer beside it is told too', async () => {
    const fixture = await createRunningSession(t, { bearer: user.token, resumeUrl: webhook.url });
    const pendingId = await detachedAsk(fixture);
    const dashboard = await holdWait(pendingId, user.token);
    const agent = await holdWait(pendingId, fixture.agentToken);

    await answer(pendingId);

    for (const waited of [await agent.reply, await dashboard.reply]) {
      expect(waited.status).toBe(200);
      expect(waited.body).toMatchObject({ pending_id: pendingId, answers: ANSWERS });
    }
    expect(await resumeTurns(t.db, pendingId)).toEqual([]);
    expect(await resumePrompts(t.db, pendingId)).toEqual([]);
    expect(webhook.postsFor(pendingId)).toEqual([]);
    expect(await deliveryOf(t, pendingId)).toBe('live_waiter');
  });

  it('another session’s agent token — of another task or of the same one — cannot wait on the bundle at all (not found)', async () => {
    const fixture = await createRunningSession(t, { bearer: user.token });
    const other = await createRunningSession(t, { bearer: user.token });
    const sibling = await request(t.baseUrl).post(`/api/v1/tasks/${fixture.taskId}/sessions`).set('authorization', `Bearer ${user.token}`).send({}).expect(201);
    const pendingId = await detachedAsk(fixture);
    for (const token of [other.agentToken, sibling.body.agent_token as string]) {
      const res = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).set('authorization', `Bearer ${token}`);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'clarification request not found', code: 'NOT_FOUND' } });
    }
  });
});

describe('with AUTH_MODE=disabled any /wait is the agent', () => {
  let t: TestApp;
  let webhook: WebhookReceiver;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'disabled', ...CONFIG } });
    webhook = await startWebhookReceiver(accept);
  });
  afterAll(async () => {
    await webhook.close();
    await t.close();
  });

  it('an anonymous /wait consumes the answer: no resume, no prompt', async () => {
    const fixture = await createRunningSession(t, { resumeUrl: webhook.url });
    const asked = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    const pendingId = asked.body.pending_id as string;
    const waiting = request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).then((res) => res);
    await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));

    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);

    expect((await waiting).body).toMatchObject({ pending_id: pendingId, answers: ANSWERS });
    expect(await resumeTurns(t.db, pendingId)).toEqual([]);
    expect(webhook.postsFor(pendingId)).toEqual([]);
    expect(await deliveryOf(t, pendingId)).toBe('live_waiter');
  });
});
