import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { retryDelayMs, verifySignature } from '#webhooks';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, createUser, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql, gqlData } from '../../support/graphql.js';
import { type ReceivedPost, type Responder, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

/**
 * Per-workspace subscriptions managed by the workspace's owner; the
 * outbox row is written by the statement that writes the question event; deliveries are signed
 * (HMAC-SHA256 over `<timestamp>.<body>`), retried with backoff after failures (500s, refusals, a
 * receiver too slow to answer), logged, and the subscription is disabled after repeated failures —
 * re-enabling it sends what was held back, so nothing is lost.
 */
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];
const SECRET = 'a-test-signing-secret-0123456789';

interface Delivery {
  id: string;
  event: string;
  pending_id: string;
  state: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  history: Array<{ status_code: number | null; error: string | null }>;
}

interface OutboundBody {
  id: string;
  event: string;
  type: string;
  pending_id: string;
  url: string;
  data: { resolved_by?: { kind: string; name: string | null; surface: string } };
}

describe('outbound webhooks', () => {
  let t: TestApp;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };
  const receivers: WebhookReceiver[] = [];
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    t = await startApp({
      config: {
        authMode: 'enabled',
        ...QUIET_LEASE,
        publicUrl: 'https://parley.example',
        webhooks: {
          timeoutMs: 400,
          maxAttempts: 10,
          retryBaseMs: 20,
          retryMaxMs: 100,
          disableAfterFailures: 3,
          pollIntervalMs: 50,
          concurrency: 8,
        },
      },
    });
    alice = await createUser(t, 'alice');
    bob = await createUser(t, 'bob');
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await t.close();
  });

  async function receiver(respond?: Responder): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver(respond);
    receivers.push(started);
    return started;
  }

  async function subscribe(fixture: SessionFixture, url: string, extra: Record<string, unknown> = {}): Promise<string> {
    const created = await request(t.baseUrl)
      .post(`/api/v1/workspaces/${fixture.workspaceId}/webhooks`)
      .set(as(alice.token))
      .send({ url, events: ['asked', 'resolved'], secret: SECRET, ...extra })
      .expect(201);
    return created.body.id as string;
  }

  async function ask(fixture: SessionFixture): Promise<string> {
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set(as(alice.token))
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    return asked.body.pending_id as string;
  }

  async function deliveries(webhookId: string, token = alice.token): Promise<Delivery[]> {
    const res = await request(t.baseUrl).get(`/api/v1/webhooks/${webhookId}/deliveries`).set(as(token)).expect(200);
    return (res.body as { deliveries: Delivery[] }).deliveries;
  }

  function deliveredOnce(webhookId: string, what: string): Promise<Delivery> {
    return eventually(
      async () => {
        const [latest] = await deliveries(webhookId);
        return latest && ['delivered', 'failed', 'skipped'].includes(latest.state) ? latest : undefined;
      },
      15_000,
      what,
    );
  }

  const header = (post: ReceivedPost, name: string) => post.headers[name] as string | undefined;

  it('a subscription is managed by its workspace owner; anyone else gets the same 404 as for nothing, and bad input a 400 naming the field', async () => {
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const created = await request(t.baseUrl)
      .post(`/api/v1/workspaces/${fixture.workspaceId}/webhooks`)
      .set(as(alice.token))
      .send({ url: 'https://hooks.example/parley', events: ['resolved', 'asked'] })
      .expect(201);
    expect(created.body).toMatchObject({ workspace_id: fixture.workspaceId, events: ['asked', 'resolved'], format: 'json', status: 'active' });
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id as string;

    const listed = await request(t.baseUrl).get(`/api/v1/workspaces/${fixture.workspaceId}/webhooks`).set(as(alice.token)).expect(200);
    expect(listed.body.webhooks.map((hook: { id: string }) => hook.id)).toEqual([id]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret as string);
    await request(t.baseUrl).get(`/api/v1/webhooks/${id}`).set(as(TEST_ADMIN_TOKEN)).expect(200);

    const missing = await request(t.baseUrl).get('/api/v1/webhooks/00000000-0000-0000-0000-000000000000').set(as(bob.token)).expect(404);
    // A member sees the workspace's bundles as its owner does, but managing it stays with the owner:
    // bob, a member, gets the same not-found as a stranger.
    await request(t.baseUrl).post(`/api/v1/admin/workspaces/${fixture.workspaceId}/members`).set(as(TEST_ADMIN_TOKEN)).send({ user_id: bob.id }).expect(200);
    const memberCreate = await request(t.baseUrl)
      .post(`/api/v1/workspaces/${fixture.workspaceId}/webhooks`)
      .set(as(bob.token))
      .send({ url: 'https://hooks.example/member', events: ['asked'] })
      .expect(404);
    for (const [method, path] of [
      ['get', `/api/v1/webhooks/${id}`],
      ['patch', `/api/v1/webhooks/${id}`],
      ['delete', `/api/v1/webhooks/${id}`],
      ['get', `/api/v1/webhooks/${id}/deliveries`],
    ] as const) {
      const foreign = await request(t.baseUrl)[method](path).set(as(bob.token)).send({ enabled: false }).expect(404);
      expect(foreign.body).toEqual(missing.body);
      // A session's agent token is no credential here at all (it reads and waits on its own bundles only).
      await request(t.baseUrl)[method](path).set(as(fixture.agentToken)).send({ enabled: false }).expect(401);
    }
    const foreignWorkspace = await request(t.baseUrl).get(`/api/v1/workspaces/${fixture.workspaceId}/webhooks`).set(as(bob.token)).expect(404);
    const noWorkspace = await request(t.baseUrl).get('/api/v1/workspaces/nope/webhooks').set(as(bob.token)).expect(404);
    expect(foreignWorkspace.body).toEqual(noWorkspace.body);
    expect(memberCreate.body).toEqual(noWorkspace.body);
    await request(t.baseUrl).get(`/api/v1/tasks/${fixture.taskId}`).set(as(bob.token)).expect(200);
    await request(t.baseUrl).delete(`/api/v1/admin/workspaces/${fixture.workspaceId}/members/${bob.id}`).set(as(TEST_ADMIN_TOKEN)).expect(200);

    for (const [body, field] of [
      [{ url: 'ftp://hooks.example/x', events: ['asked'] }, 'url'],
      [{ url: 'https://hooks.example/x', events: [] }, 'events'],
      [{ url: 'https://hooks.example/x', events: ['asked', 'everything'] }, 'events\\[1\\]'],
      [{ url: 'https://hooks.example/x', events: ['asked'], secret: 'short' }, 'secret'],
    ] as const) {
      const bad = await request(t.baseUrl).post(`/api/v1/workspaces/${fixture.workspaceId}/webhooks`).set(as(alice.token)).send(body).expect(400);
      expect(bad.body.error).toMatch(new RegExp(`^${field} `));
    }
    // Private targets are refused unless allowed (this app allows them for its local receivers).
    const patched = await request(t.baseUrl).patch(`/api/v1/webhooks/${id}`).set(as(alice.token)).send({ enabled: false }).expect(200);
    expect(patched.body).toMatchObject({ status: 'disabled', disabled_reason: 'disabled by its owner' });
    await request(t.baseUrl).delete(`/api/v1/webhooks/${id}`).set(as(alice.token)).expect(200);
    await request(t.baseUrl).get(`/api/v1/webhooks/${id}`).set(as(alice.token)).expect(404);
  });

  it('GraphQL manages the same subscriptions, with the same not-found for a foreign caller', async () => {
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const created = await gqlData<{ createWebhook: { webhook: { id: string; events: string[]; format: string }; secret: string } }>(
      t,
      `mutation ($ws: String!) { createWebhook(workspaceId: $ws, url: "https://hooks.example/slack", events: ["asked"], format: "slack") {
         webhook { id events format } secret } }`,
      { ws: fixture.workspaceId },
      alice.token,
    );
    expect(created.createWebhook.webhook).toMatchObject({ events: ['asked'], format: 'slack' });
    const id = created.createWebhook.webhook.id;
    const listed = await gqlData<{ webhooks: Array<{ id: string }> }>(t, `query ($ws: String!) { webhooks(workspaceId: $ws) { id } }`, { ws: fixture.workspaceId }, alice.token);
    expect(listed.webhooks).toEqual([{ id }]);
    const foreign = await gql(t, `mutation ($id: String!) { updateWebhook(id: $id, enabled: false) { id } }`, { id }, bob.token);
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const bad = await gql(t, `mutation ($ws: String!) { createWebhook(workspaceId: $ws, url: "https://x.example", events: ["nope"]) { secret } }`, { ws: fixture.workspaceId }, alice.token);
    expect(bad.body.errors?.[0]?.message).toMatch(/^events\[0\] /);
    expect(await gqlData(t, `mutation ($id: String!) { deleteWebhook(id: $id) }`, { id }, alice.token)).toEqual({ deleteWebhook: true });
  });

  it('asked and resolved are delivered signed, from an outbox row written with the event, naming who answered', async () => {
    const hook = await receiver();
    const fixture = await createRunningSession(t, { bearer: alice.token, taskTitle: 'Pick a database' });
    const webhookId = await subscribe(fixture, hook.url);
    const pendingId = await ask(fixture);
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set(as(alice.token)).send({ answers: ANSWERS }).expect(200);

    const posts = await eventually(() => (hook.posts.length >= 2 ? hook.posts : undefined), 10_000, 'two deliveries');
    const bodies = posts.map((post) => JSON.parse(post.raw) as OutboundBody);
    expect(bodies.map((body) => [body.event, body.type, body.pending_id])).toEqual([
      ['asked', 'ASKED', pendingId],
      ['resolved', 'ANSWERED', pendingId],
    ]);
    expect(bodies[0]?.url).toBe(`https://parley.example/#/q/${pendingId}`);
    expect(bodies[1]?.data.resolved_by).toMatchObject({ kind: 'user', name: 'alice', surface: 'rest' });
    for (const post of posts) {
      const signed = { timestamp: header(post, 'x-parley-timestamp'), signature: header(post, 'x-parley-signature') };
      expect(verifySignature(SECRET, signed, post.raw)).toBe(true);
      expect(verifySignature('another-secret-0123456789', signed, post.raw)).toBe(false);
      expect(verifySignature(SECRET, signed, post.raw.replace('ASKED', 'AXKED').replace('ANSWERED', 'ANSWEXED'))).toBe(false);
      expect(header(post, 'x-parley-delivery')).toBe(JSON.parse(post.raw).id);
      expect(header(post, 'idempotency-key')).toBe(header(post, 'x-parley-delivery'));
    }
    expect(posts.map((post) => header(post, 'x-parley-event'))).toEqual(['asked', 'resolved']);

    // Each outbox row names the event the same transaction wrote (same id, same transaction id).
    const { rows } = await t.db.query(
      `SELECT e.type, d.event_id = e.id AS same_event FROM webhook_deliveries d JOIN question_events e ON e.id = d.event_id
        WHERE d.subscription_id = $1 ORDER BY e.id`,
      [webhookId],
    );
    expect(rows).toEqual([
      { type: 'ASKED', same_event: true },
      { type: 'ANSWERED', same_event: true },
    ]);
    const log = await deliveredOnce(webhookId, 'the log');
    expect(log).toMatchObject({ state: 'delivered', attempts: 1, last_status_code: 202 });
  });

  it('a Slack subscription gets an incoming-webhook body: text with a link to the bundle in the inbox', async () => {
    const hook = await receiver();
    const fixture = await createRunningSession(t, { bearer: alice.token, taskTitle: 'Ship <it> & more' });
    await subscribe(fixture, hook.url, { format: 'slack', events: ['asked'] });
    const pendingId = await ask(fixture);
    const [post] = await eventually(() => (hook.posts.length >= 1 ? hook.posts : undefined), 10_000, 'the Slack message');
    const body = JSON.parse((post).raw) as { text: string };
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text).toContain('An agent is blocked');
    expect(body.text).toContain('*Ship &lt;it&gt; &amp; more*');
    expect(body.text).toContain('Which database?');
    expect(body.text).toContain(`<https://parley.example/#/q/${pendingId}|Answer in Parley>`);
  });

  it('after 500s the same delivery is retried until accepted; the log shows every attempt', async () => {
    const hook = await receiver((_post, index) => (index < 2 ? 500 : 200));
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const webhookId = await subscribe(fixture, hook.url, { events: ['asked'] });
    await ask(fixture);
    const log = await deliveredOnce(webhookId, 'delivered after two 500s');
    expect(log).toMatchObject({ state: 'delivered', attempts: 3, last_status_code: 200, last_error: null });
    expect(log.history.map((attempt) => attempt.status_code)).toEqual([500, 500, 200]);
    expect(new Set(hook.posts.map((post) => header(post, 'x-parley-delivery')))).toEqual(new Set([log.id]));
    expect(hook.posts).toHaveLength(3);
    const subscription = await request(t.baseUrl).get(`/api/v1/webhooks/${webhookId}`).set(as(alice.token)).expect(200);
    expect(subscription.body).toMatchObject({ status: 'active', consecutive_failures: 0 });
  });

  it('a receiver too slow to answer: the attempt times out and is retried; nothing is lost', async () => {
    const hook = await receiver((_post, index) => (index === 0 ? 'hang' : 204));
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const webhookId = await subscribe(fixture, hook.url, { events: ['asked'] });
    await ask(fixture);
    const log = await deliveredOnce(webhookId, 'delivered after a timeout');
    expect(log).toMatchObject({ state: 'delivered', attempts: 2, last_status_code: 204 });
    expect(log.history[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/no response within 400 ms/) });
  });

  it('a refusing receiver disables the subscription after repeated failures, with a clear status; re-enabled, it sends what was held back', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refusedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise((resolve) => closed.close(resolve));

    const fixture = await createRunningSession(t, { bearer: alice.token });
    const webhookId = await subscribe(fixture, refusedUrl, { events: ['asked', 'resolved'] });
    const pendingId = await ask(fixture);
    const disabled = await eventually(
      async () => {
        const res = await request(t.baseUrl).get(`/api/v1/webhooks/${webhookId}`).set(as(alice.token)).expect(200);
        return res.body.status === 'disabled' ? res.body : undefined;
      },
      10_000,
      'the subscription disabled',
    );
    expect(disabled).toMatchObject({ consecutive_failures: 3, disabled_reason: expect.stringMatching(/^disabled after 3 consecutive failed attempts; the last: .*ECONNREFUSED/) });
    expect(disabled.disabled_at).not.toBeNull();
    // The delivery that failed is held back (skipped); an event while disabled is not queued for it at all —
    // the outbox row would have been written by the answer's own transaction.
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set(as(alice.token)).send({ answers: ANSWERS }).expect(200);
    const held = await deliveries(webhookId);
    expect(held.map((delivery) => [delivery.event, delivery.state, delivery.attempts])).toEqual([['ASKED', 'skipped', 3]]);

    const hook = await receiver();
    const enabled = await request(t.baseUrl).patch(`/api/v1/webhooks/${webhookId}`).set(as(alice.token)).send({ url: hook.url, enabled: true }).expect(200);
    expect(enabled.body).toMatchObject({ status: 'active', consecutive_failures: 0, disabled_reason: null });
    const log = await deliveredOnce(webhookId, 'the held-back delivery sent');
    expect(log).toMatchObject({ event: 'ASKED', state: 'delivered', attempts: 1 });
    expect(log.history.map((attempt) => attempt.status_code)).toEqual([null, null, null, 202]);
    expect(hook.posts.map((post) => (JSON.parse(post.raw) as OutboundBody).type)).toEqual(['ASKED']);
  });

  it('only the workspace owner (or an admin) reads the delivery log, over REST and GraphQL', async () => {
    const hook = await receiver();
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const webhookId = await subscribe(fixture, hook.url, { events: ['asked'] });
    await ask(fixture);
    await deliveredOnce(webhookId, 'delivered');
    expect(await deliveries(webhookId, TEST_ADMIN_TOKEN)).toHaveLength(1);
    const viaGraphql = await gqlData<{ webhookDeliveries: { nodes: Array<{ state: string; attempts: number }> } }>(
      t,
      `query ($id: String!) { webhookDeliveries(webhookId: $id) { nodes { state attempts } } }`,
      { id: webhookId },
      alice.token,
    );
    expect(viaGraphql.webhookDeliveries.nodes).toEqual([{ state: 'delivered', attempts: 1 }]);
    const foreign = await gql(t, `query ($id: String!) { webhookDeliveries(webhookId: $id) { nodes { state } } }`, { id: webhookId }, bob.token);
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('backoff is exponential, capped, with jitter', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1000, 60_000, () => 1))).toEqual([1000, 2000, 4000, 8000]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1000, 60_000, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect(retryDelayMs(30, 1000, 60_000, () => 1)).toBe(60_000);
  });
});
