/**
 * A resume whose outcome is unknown is never answered twice differently. The
 * receiver holds the first POST past RESUME_TIMEOUT_MS (it may act on it), then answers 2xx: the
 * answer is not rolled back, it is re-sent under the same Idempotency-Key until accepted, and a second
 * answer given meanwhile is told the first — the receiver never sees a different answer for the bundle.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { rowsOf, settlement } from '../../support/bundle-state.js';
import { eventually } from '../../support/eventually.js';
import { freshBundle } from '../../support/fixtures.js';
import { held, hang, type Responder, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const A = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'the first answer' },
];
const B = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'the second answer' },
];
const RESUME_TIMEOUT_MS = 300;
/** The sweeper re-sends owed resumes at every heartbeat. */
const HEARTBEAT_MS = 200;
const DELIVERY_FAILED = { error: 'the agent could not be resumed; the answer can be retried', code: 'INTERNAL_ERROR' };

describe('a resume whose outcome is unknown', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];

  const receiver = async (respond: Responder) => {
    const started = await startWebhookReceiver(respond);
    receivers.push(started);
    return started;
  };
  const respond = (pendingId: string, answers: unknown) => request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers });

  beforeAll(async () => {
    t = await startApp({ config: { resumeTimeoutMs: RESUME_TIMEOUT_MS, deliveryConfirmTimeoutMs: 1_000, leaseHeartbeatMs: HEARTBEAT_MS, leaseTtlMs: 3_000 } });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t.close();
  });

  it('a slow receiver: A stays claimed and is re-sent under the same key; B, given meanwhile, is told A and never reaches the receiver', async () => {
    const slow = held(202);
    const hook = await receiver(slow.responder);
    const { pendingId } = await freshBundle(t, { resumeUrl: hook.url });

    const first = await respond(pendingId, A);
    expect({ status: first.status, body: first.body as unknown }).toEqual({ status: 500, body: DELIVERY_FAILED });
    // Not rolled back: the receiver may be acting on A.
    const owed = await rowsOf(t.db, pendingId);
    expect(settlement(owed)).toBe('delivering');
    expect(owed.map((row) => row.response)).toEqual(A);

    slow.release();
    const second = await eventually(async () => {
      const res = await respond(pendingId, B);
      return res.status === 200 ? res : undefined;
    }, 15_000, 'B told the outcome');
    expect(second.body).toMatchObject({ claimed: false, status: 'answered', response: { answers: A } });
    expect(settlement(await rowsOf(t.db, pendingId))).toBe('final');

    const posts = hook.postsFor(pendingId);
    const sent = posts.length;
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 3));
    expect(hook.postsFor(pendingId)).toHaveLength(sent);
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(posts.map((post) => post.idempotencyKey)).size).toBe(1);
    for (const post of posts) {
      expect(post.body.turn_id).toBe(posts[0].idempotencyKey);
      expect(post.body.response.answers).toEqual(A);
    }
    expect(posts.some((post) => post.status === 202)).toBe(true);
  });

  it('a receiver that goes away after an unknown outcome: A stays owed — B is never claimed, nothing is rolled back', async () => {
    const hook = await receiver(hang);
    const { pendingId } = await freshBundle(t, { resumeUrl: hook.url });
    expect((await respond(pendingId, A)).status).toBe(500);
    await hook.close();
    // Its connections refused from now on: each re-send never leaves, which says nothing about the first POST.
    const posts = hook.postsFor(pendingId).length;
    const second = await respond(pendingId, B);
    expect(second.status).toBe(503);
    const rows = await rowsOf(t.db, pendingId);
    expect(settlement(rows)).toBe('delivering');
    expect(rows.map((row) => row.response)).toEqual(A);
    expect(hook.postsFor(pendingId)).toHaveLength(posts);
  });
});
