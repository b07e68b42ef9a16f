/**
 * Rules R7, R7a: a winner whose answer never reached the agent is rolled back — the
 * bundle is pending again, never "answered" behind everyone's back — and the caller is told what the
 * bundle really is now: pending again (a retryable 500) or no longer active (409).
 */
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, type TestApp } from '../support/app.js';
import { eventTypes, isActive, isRestored, presence, resumeTurns, rowsOf } from '../support/bundle-state.js';
import { QUIET_LEASE } from '../support/claim.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, type SessionFixture, TWO_QUESTIONS } from '../support/fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const FIRST = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'first try' },
];
const RETRY = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'the retry' },
];
const NOT_ACTIVE = { error: 'clarification request is no longer active', code: 'CONFLICT' };

describe('a failed delivery rolls the claim back and says what the bundle is now', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startApp({ config: { resumeTimeoutMs: 3_000, deliveryConfirmTimeoutMs: 2_000, waitTimeoutMs: 30_000, ...QUIET_LEASE } });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await t.close();
  });

  const api = () => request(t.baseUrl);

  async function ask(fixture: SessionFixture): Promise<string> {
    const res = await api().post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    return res.body.pending_id as string;
  }

  /**
   * Makes the durable delivery confirmation (the finalize UPDATE clearing `response_delivery_pending`
   * on answered rows) fail inside PostgreSQL for one bundle; the rollback (back to pending) still passes.
   */
  async function refuseConfirmation(pendingId: string): Promise<() => Promise<void>> {
    await t.db.query(`
      CREATE OR REPLACE FUNCTION test_refuse_confirmation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.metadata->>'pending_id' = TG_ARGV[0] AND OLD.metadata ? 'response_delivery_pending'
           AND NOT NEW.metadata ? 'response_delivery_pending' AND NEW.metadata->>'status' IN ('answered', 'rejected') THEN
          RAISE EXCEPTION 'test: the delivery confirmation fails';
        END IF;
        RETURN NEW;
      END $$`);
    await t.db.query(
      `CREATE TRIGGER test_refuse_confirmation BEFORE UPDATE ON task_session_messages
         FOR EACH ROW EXECUTE FUNCTION test_refuse_confirmation('${pendingId}')`,
    );
    return async () => {
      await t.db.query(`DROP TRIGGER test_refuse_confirmation ON task_session_messages`);
      await t.db.query(`DROP FUNCTION test_refuse_confirmation()`);
    };
  }

  it('a live agent whose confirmation fails keeps waiting: 500 "pending again", rows restored, and a retry wins and reaches that same agent', async () => {
    const fixture = await createRunningSession(t);
    const pendingId = await ask(fixture);
    // The session's agent holds a live wait (its agent token; with auth disabled any /wait is the agent).
    let told: request.Response | undefined;
    const waiting = api()
      .get(`/api/v1/clarification/${pendingId}/wait`)
      .set('authorization', `Bearer ${fixture.agentToken}`)
      .then((res) => (told = res));
    await eventually(async () => ((await presence(t.db, pendingId)).length === 1 ? true : undefined), 5_000, 'agent presence');

    const restoreConfirmation = await refuseConfirmation(pendingId);
    const failed = await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: FIRST });
    await restoreConfirmation();

    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatch(/the clarification is pending again and the answer can be retried$/);
    // The agent was told nothing — not "abandoned", not a timeout: it is still waiting on this process.
    expect(told).toBeUndefined();
    expect(t.app.get(WaiterStore).waiterCount(pendingId)).toBe(1);
    expect(await presence(t.db, pendingId)).toHaveLength(1);
    // Pending again: no response, no delivery marker, no owner; active and listed; no winner event.
    expect(isRestored(await rowsOf(t.db, pendingId))).toBe(true);
    expect(await isActive(t.db, pendingId)).toBe(true);
    expect((await api().get(`/api/v1/clarification/${pendingId}`).expect(200)).body).toMatchObject({ status: 'pending', response: null });
    expect(await eventTypes(t.db, pendingId)).toEqual(['ASKED']);

    const retried = await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: RETRY }).expect(200);
    expect(retried.body).toMatchObject({ success: true, claimed: true, status: 'answered', response: { answers: RETRY } });
    const delivered = await waiting;
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ pending_id: pendingId, answers: RETRY, rejected: false });
    const rows = await rowsOf(t.db, pendingId);
    expect(rows.map((row) => [row.status, row.response, row.response_delivery_pending])).toEqual([
      ['answered', RETRY[0], undefined],
      ['answered', RETRY[1], undefined],
    ]);
    // Delivered live: no resume; exactly one winner event.
    expect(await resumeTurns(t.db, pendingId)).toEqual([]);
    expect(await eventTypes(t.db, pendingId)).toEqual(['ASKED', 'ANSWERED']);
  });

  /** A webhook that, before refusing the resume, makes the bundle stale by `meanwhile` (the orchestrator moved on). */
  async function refusingAfter(meanwhile: (sessionId: string) => Promise<unknown>): Promise<WebhookReceiver> {
    const receiver = await startWebhookReceiver(async (post) => {
      await meanwhile(post.body.session_id);
      return 503;
    });
    receivers.push(receiver);
    return receiver;
  }

  it.each([
    ['the session ended (PATCH state COMPLETED)', (sessionId: string) => api().patch(`/api/v1/sessions/${sessionId}`).send({ state: 'COMPLETED' }).expect(200)],
    ['a newer turn started', (sessionId: string) => api().post(`/api/v1/sessions/${sessionId}/turns`).expect(201)],
  ])('a refused resume whose rollback cannot restore the bundle (%s) ⇒ 409 not active, rows pending without response or marker', async (_case, meanwhile) => {
    const receiver = await refusingAfter(meanwhile);
    const fixture = await createRunningSession(t, { resumeUrl: receiver.url });
    const pendingId = await ask(fixture);

    const res = await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: FIRST });
    expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: NOT_ACTIVE });
    expect(receiver.postsFor(pendingId)).toHaveLength(1);

    // Not "pending again": not active; the claim's rows carry no answer and no marker (no later sweep touches them).
    expect(isRestored(await rowsOf(t.db, pendingId))).toBe(true);
    expect(await isActive(t.db, pendingId)).toBe(false);
    expect(await resumeTurns(t.db, pendingId)).toEqual([]);
    const { rows: marked } = await t.db.query(
      `SELECT 1 FROM task_session_messages WHERE task_session_id = $1 AND metadata ? 'response_delivery_pending'`,
      [fixture.sessionId],
    );
    expect(marked).toEqual([]);
    // And it stays so: another answer is refused the same way.
    const again = await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: RETRY });
    expect({ status: again.status, body: again.body }).toEqual({ status: 409, body: NOT_ACTIVE });
    expect(receiver.postsFor(pendingId)).toHaveLength(1);
  });
});
