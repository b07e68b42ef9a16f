/**
 * "Outbound webhooks" across replicas: every replica's dispatcher reads the one outbox and
 * each delivery is claimed by one process (SKIP LOCKED, fenced by its lease), so two replicas send
 * each delivery once; a replica killed -9 while a receiver holds its POST leaves the delivery to
 * another replica once its claim expires — the same delivery id is sent again and nothing is lost.
 * The CLI manages subscriptions on the same database.
 */
import request from 'supertest';
import { createTestDatabase, openPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../support/fixtures.js';
import { runCli, startReplica } from '../support/replicas.js';
import { killAllServers, killServer, type ServerProcess } from '../support/server-process.js';
import { type Responder, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const WEBHOOK_TIMEOUT_MS = 1_000;
const REPLICA_ENV = {
  OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_POLL_INTERVAL_MS: '50',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
};
/** Bound on starting replicas and on each test: spawned servers start slowly on a loaded machine. */
const SLOW_MACHINE_MS = 240_000;
/** The dispatcher's claim lasts the attempt's bound plus a 10 s margin. */
const CLAIM_EXPIRES_WITHIN_MS = WEBHOOK_TIMEOUT_MS + 10_000 + 10_000;

describe('outbound webhooks on several replicas', () => {
  let databaseUrl: string;
  let db: ReturnType<typeof openPool>;
  let a: ServerProcess;
  let b: ServerProcess;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 4);
    a = await startReplica(databaseUrl, REPLICA_ENV);
    b = await startReplica(databaseUrl, REPLICA_ENV);
  }, SLOW_MACHINE_MS);
  afterAll(async () => {
    await killAllServers();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await db.end();
  });

  const cli = (args: string[]) => runCli(databaseUrl, [...args, '--json'], REPLICA_ENV);

  async function receiver(respond?: Responder): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver(respond);
    receivers.push(started);
    return started;
  }

  async function subscribeWithCli(workspaceId: string, url: string): Promise<string> {
    const created = await cli(['webhooks:create', '--workspace', workspaceId, '--url', url, '--events', 'asked,resolved']);
    expect(created).toMatchObject({ code: 0 });
    const subscription = JSON.parse(created.stdout) as { id: string; secret: string; events: string[] };
    expect(subscription.events).toEqual(['asked', 'resolved']);
    expect(subscription.secret).toMatch(/^whsec_/);
    return subscription.id;
  }

  async function ask(server: ServerProcess, sessionId: string): Promise<string> {
    const res = await request(server.baseUrl).post('/api/v1/clarification/request').send({ session_id: sessionId, questions: TWO_QUESTIONS }).expect(200);
    return res.body.pending_id as string;
  }

  it('two replicas: every delivery is sent exactly once, whichever replica wrote its event', async () => {
    const hook = await receiver();
    const first = await createRunningSession(a);
    const webhookId = await subscribeWithCli(first.workspaceId, hook.url);
    const asked: string[] = [];
    for (let n = 0; n < 12; n += 1) {
      const server = n % 2 === 0 ? a : b;
      const task = await request(server.baseUrl).post('/api/v1/tasks').send({ title: `task ${n}`, workspace_id: first.workspaceId }).expect(201);
      const session = await request(server.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`).send({}).expect(201);
      await request(server.baseUrl).patch(`/api/v1/sessions/${session.body.id}`).send({ state: 'RUNNING' }).expect(200);
      await request(server.baseUrl).post(`/api/v1/sessions/${session.body.id}/turns`).expect(201);
      asked.push(await ask(server, session.body.id as string));
    }
    await eventually(
      async () => {
        const { rows } = await db.query(`SELECT COUNT(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND state = 'delivered'`, [webhookId]);
        return rows[0].n === asked.length ? true : undefined;
      },
      20_000,
      'every delivery delivered',
    );
    const ids = hook.posts.map((post) => post.headers['x-parley-delivery']);
    expect(ids).toHaveLength(asked.length);
    expect(new Set(ids).size).toBe(asked.length);
    expect(hook.posts.map((post) => post.body.pending_id).sort()).toEqual([...asked].sort());
    // Each was sent in one attempt: no replica sent a delivery another one had claimed.
    const { rows } = await db.query(`SELECT COUNT(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 AND attempts = 1`, [webhookId]);
    expect(rows[0].n).toBe(asked.length);

    const listed = await cli(['webhooks:deliveries', webhookId, '--limit', '3']);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { deliveries: Array<{ state: string }> }).deliveries.map((delivery) => delivery.state)).toEqual([
      'delivered',
      'delivered',
      'delivered',
    ]);
    expect((await cli(['webhooks:disable', webhookId])).code).toBe(0);
    const disabled = await cli(['webhooks:list', '--workspace', first.workspaceId]);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ webhooks: [{ id: webhookId, status: 'disabled', disabled_reason: 'disabled by its owner' }] });
    const bad = await cli(['webhooks:create', '--workspace', first.workspaceId, '--url', hook.url, '--events', 'asked,nope']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/events\[1\] must be one of asked, resolved, expired, detached/);
  }, SLOW_MACHINE_MS);

  it('a replica killed -9 while its POST is held: another replica sends the same delivery again once the claim expires', async () => {
    const hook = await receiver((_post, index) => (index === 0 ? 'hang' : 200));
    const fixture = await createRunningSession(a);
    const webhookId = await subscribeWithCli(fixture.workspaceId, hook.url);
    // Only `a` runs while the event is written and sent.
    await killServer(b);
    const pendingId = await ask(a, fixture.sessionId);
    await eventually(() => (hook.posts.length === 1 ? true : undefined), 10_000, 'the first POST held by the receiver');
    await killServer(a);
    b = await startReplica(databaseUrl, REPLICA_ENV);

    await eventually(() => (hook.posts.length === 2 ? true : undefined), CLAIM_EXPIRES_WITHIN_MS, 'the delivery sent again by the surviving replica');
    const [held, resent] = hook.posts;
    expect(resent?.headers['x-parley-delivery']).toBe(held?.headers['x-parley-delivery']);
    expect(resent?.body.pending_id).toBe(pendingId);
    const delivered = await eventually(
      async () => {
        const { rows } = await db.query(`SELECT state, attempts FROM webhook_deliveries WHERE subscription_id = $1`, [webhookId]);
        return rows[0]?.state === 'delivered' ? rows : undefined;
      },
      10_000,
      'delivered',
    );
    expect(delivered).toEqual([{ state: 'delivered', attempts: 2 }]);
  }, SLOW_MACHINE_MS);
});
