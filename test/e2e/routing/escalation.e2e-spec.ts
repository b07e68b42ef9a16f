/**
 * Routing's escalation ladder (rule Q4): steps run in order, each once, `after_seconds` from the ask.
 * `remind` writes a REMINDED question event (feed, GraphQL subscription, webhooks — signed, naming the
 * eligible users); `reassign_to` replaces the eligible set, writes ESCALATED and an audit row. The
 * timers are rows in PostgreSQL: here a step is made due by moving its row's due_at to now (never by
 * waiting 30 s), and the sweep every replica runs picks it up. A bundle resolved or expired first
 * ends its ladder: no step of it fires.
 */
import request from 'supertest';
import { DeadlineSweeper, EscalationSweeper } from '#clarification/testing';
import { verifySignature } from '#webhooks';
import { startApp, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { openStreams, subscribe } from '../../support/graphql.js';
import { ADMIN, askRouted, ONE_QUESTION, PICK, respondAs, team, type Team } from '../../support/routing.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

type Member = Team['members'][number];
const SECRET = 'a-test-signing-secret-0123456789';

describe('routing: escalation', () => {
  let t: TestApp;
  let crew: Team;
  let alice: Member;
  let bob: Member;
  let hook: WebhookReceiver;
  let prompt = 0;


  async function escalated(extra: Record<string, unknown> = {}): Promise<string> {
    prompt += 1;
    const session = await request(t.baseUrl).post(`/api/v1/tasks/${crew.fixture.taskId}/sessions`).set('authorization', `Bearer ${crew.owner.token}`).send({}).expect(201);
    const sessionId = session.body.id as string;
    await request(t.baseUrl).patch(`/api/v1/sessions/${sessionId}`).set('authorization', `Bearer ${crew.owner.token}`).send({ state: 'RUNNING' }).expect(200);
    const routing = { answerers: { user_ids: [alice.id] }, escalation: [{ after_seconds: 60, remind: true }, { after_seconds: 120, reassign_to: { user_ids: [bob.id] } }] };
    const asked = await askRouted(t, { ...crew, fixture: { ...crew.fixture, sessionId } }, [{ ...ONE_QUESTION[0], prompt: `q${prompt}` }], routing, extra).expect(200);
    return asked.body.pending_id as string;
  }

  /** Makes the bundle's due steps (those at most `seconds` after the ask) due now, and sweeps. */
  async function advance(pendingId: string, seconds: number): Promise<void> {
    await t.db.query(
      `UPDATE clarification_escalations e SET due_at = clock_timestamp()
         FROM clarification_bundles b WHERE e.pending_id = $1 AND b.pending_id = e.pending_id AND e.due_at <= b.created_at + make_interval(secs => $2 + 1)`,
      [pendingId, seconds],
    );
    await t.app.get(EscalationSweeper).sweep();
  }

  const eventsOf = async (pendingId: string) =>
    (await t.db.query<{ type: string; payload: Record<string, unknown> }>(`SELECT type, payload FROM question_events WHERE pending_id = $1 ORDER BY id`, [pendingId])).rows;

  beforeAll(async () => {
    t = await startApp({
      config: {
        authMode: 'enabled',
        deadlineSweepIntervalMs: 3_600_000,
        webhooks: { timeoutMs: 2_000, maxAttempts: 3, retryBaseMs: 20, retryMaxMs: 100, disableAfterFailures: 10, pollIntervalMs: 50, concurrency: 4 },
      },
    });
    crew = await team(t, 2, 'esc');
    [alice, bob] = crew.members as [Member, Member];
    hook = await startWebhookReceiver();
    await request(t.baseUrl)
      .post(`/api/v1/workspaces/${crew.fixture.workspaceId}/webhooks`)
      .set('authorization', `Bearer ${crew.owner.token}`)
      .send({ url: hook.url, events: ['reminded', 'escalated'], secret: SECRET })
      .expect(201);
  });

  afterAll(async () => {
    await hook.close();
    await t.close();
  });

  it('stores one timer row per step, due after_seconds after the ask', async () => {
    const pendingId = await escalated();
    const rows = await t.db.query<{ step: number; offset: number }>(
      `SELECT e.step, round(extract(epoch FROM e.due_at - b.created_at))::int AS offset FROM clarification_escalations e
         JOIN clarification_bundles b ON b.pending_id = e.pending_id WHERE e.pending_id = $1 ORDER BY e.step`,
      [pendingId],
    );
    expect(rows.rows).toEqual([
      { step: 0, offset: 60 },
      { step: 1, offset: 120 },
    ]);
  });

  it('remind: a REMINDED event naming the eligible users, on the feed, the subscription and a signed webhook — once', async () => {
    const pendingId = await escalated();
    const live = subscribe<{ questionEvents: { type: string; pendingId: string; eligible: { userId: string; name: string }[] | null } }>(
      t,
      `subscription { questionEvents { type pendingId eligible { userId name } } }`,
      { connectionParams: { authorization: `Bearer ${bob.token}` } },
    );
    try {
      await live.connected;
      await openStreams(t, 1);
      await advance(pendingId, 60);
      await advance(pendingId, 60);
      expect((await eventsOf(pendingId)).map((event) => event.type)).toEqual(['ASKED', 'REMINDED']);
      const [reminded] = (await eventsOf(pendingId)).filter((event) => event.type === 'REMINDED');
      expect(reminded?.payload).toEqual({ step: 0, eligible: [{ user_id: alice.id, name: alice.name }], everyone: false });
      const received = await live.waitFor(1);
      expect(received.map((event) => event.questionEvents)).toEqual([{ type: 'REMINDED', pendingId, eligible: [{ userId: alice.id, name: alice.name }] }]);
      const post = await eventually(() => hook.postsFor(pendingId)[0], 10_000, 'the REMINDED webhook');
      const body = JSON.parse(post.raw) as { event: string; type: string; data: unknown };
      expect(body).toMatchObject({ event: 'reminded', type: 'REMINDED', data: { eligible: [{ user_id: alice.id }] } });
      const signed = { timestamp: String(post.headers['x-parley-timestamp']), signature: String(post.headers['x-parley-signature']) };
      expect(verifySignature(SECRET, signed, post.raw)).toBe(true);
      // Bob, not yet eligible, is refused.
      expect((await respondAs(t, bob.token, pendingId, { answers: PICK('sqlite') })).status).toBe(403);
    } finally {
      await live.close();
    }
  });

  it('reassign_to: replaces who may answer, writes ESCALATED and an audit row — once, after the steps before it', async () => {
    const pendingId = await escalated();
    await advance(pendingId, 120);
    await advance(pendingId, 120);
    const events = await eventsOf(pendingId);
    expect(events.map((event) => event.type)).toEqual(['ASKED', 'REMINDED', 'ESCALATED']);
    expect(events[2]?.payload).toEqual({ step: 1, eligible: [{ user_id: bob.id, name: bob.name }], everyone: false });
    const audit = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit`).set('authorization', ADMIN).expect(200);
    expect((audit.body.attempts as { outcome: string; surface: string; detail: string }[]).filter((a) => a.outcome === 'escalated')).toEqual([
      expect.objectContaining({ outcome: 'escalated', surface: 'escalation', detail: `step 1: reassigned to ${bob.name}` }),
    ]);
    const listed = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${alice.token}`).expect(200);
    expect(listed.body).toMatchObject({ eligible: false, routing: { answerers: { user_ids: [bob.id] }, assigned_to: [{ user_id: bob.id, name: bob.name }] } });
    expect((await respondAs(t, alice.token, pendingId, { answers: PICK('postgres') })).status).toBe(403);
    expect((await respondAs(t, bob.token, pendingId, { answers: PICK('sqlite') }).expect(200)).body).toMatchObject({ claimed: true, status: 'answered' });
    await eventually(() => (hook.postsFor(pendingId).length >= 2 ? true : undefined), 10_000, 'both webhooks');
    expect(hook.postsFor(pendingId).map((post) => String(post.headers['x-parley-event']))).toEqual(['reminded', 'escalated']);
    expect(await t.db.query(`SELECT 1 FROM clarification_escalations WHERE pending_id = $1`, [pendingId]).then((r) => r.rows)).toEqual([]);
  });

  it('a bundle answered first ends its ladder: no step fires', async () => {
    const pendingId = await escalated();
    await respondAs(t, alice.token, pendingId, { answers: PICK('postgres') }).expect(200);
    await advance(pendingId, 120);
    expect((await eventsOf(pendingId)).map((event) => event.type)).toEqual(['ASKED', 'ANSWERED']);
    expect(await t.db.query(`SELECT 1 FROM clarification_escalations WHERE pending_id = $1`, [pendingId]).then((r) => r.rows)).toEqual([]);
  });

  it('expires_in_seconds still applies and ends the ladder', async () => {
    const pendingId = await escalated({ expires_in_seconds: 90 });
    await advance(pendingId, 60);
    await t.db.query(`UPDATE clarification_deadlines SET due_at = clock_timestamp() WHERE pending_id = $1`, [pendingId]);
    await t.app.get(DeadlineSweeper).sweep();
    await advance(pendingId, 120);
    expect((await eventsOf(pendingId)).map((event) => event.type)).toEqual(['ASKED', 'REMINDED', 'EXPIRED']);
    expect(await t.db.query(`SELECT 1 FROM clarification_escalations WHERE pending_id = $1`, [pendingId]).then((r) => r.rows)).toEqual([]);
  });
});
