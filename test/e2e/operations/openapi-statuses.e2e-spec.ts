/**
 * The OpenAPI document's success statuses are the ones the routes answer: every documented route is
 * driven once with a valid request and must answer one of the 2xx statuses the document lists for it.
 * A route documented without a driver here fails the test until one is added.
 */
import { createHash } from 'node:crypto';
import request from 'supertest';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { decisionRefOf } from '../../support/decisions.js';
import { createUser } from '../../support/fixtures.js';

type Documented = Record<string, Record<string, { responses: Record<string, unknown> }>>;

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const ONE_QUESTION = [{ id: 'go', prompt: 'Go?', options: [{ option_id: 'y', label: 'Yes' }, { option_id: 'n', label: 'No' }] }];

/** What the drivers share: ids created along the way, in route order. */
interface Made {
  userId: string;
  userToken: string;
  tokenId: string;
  cookie: string;
  workspaceId: string;
  taskId: string;
  sessionId: string;
  turnId: string;
  pendingId: string;
  waitedId: string;
  cancelledId: string;
  webhookId: string;
}

type Driver = (t: TestApp, made: Made) => Promise<request.Response>;

const post = (t: TestApp, path: string, body: unknown = {}) => request(t.baseUrl).post(path).set('authorization', ADMIN).send(body as object);
const get = (t: TestApp, path: string) => request(t.baseUrl).get(path).set('authorization', ADMIN);

/** One valid request per documented route, in an order where each finds what it needs. */
const DRIVERS: Array<[string, Driver]> = [
  ['GET /healthz', (t) => request(t.baseUrl).get('/healthz')],
  ['GET /readyz', (t) => request(t.baseUrl).get('/readyz')],
  ['GET /.well-known/jwks.json', (t) => request(t.baseUrl).get('/.well-known/jwks.json')],
  ['POST /api/v1/receipts/verify', (t) => request(t.baseUrl).post('/api/v1/receipts/verify').send({ receipt: 'not.a.receipt' })],
  ['POST /api/v1/receipts/redeem', (t) => post(t, '/api/v1/receipts/redeem', { receipt: 'not.a.receipt', action: { name: 'deploy', arguments: {} } })],
  ['GET /metrics', (t) => get(t, '/metrics')],
  ['POST /api/v1/admin/users', async (t, made) => {
    const res = await post(t, '/api/v1/admin/users', { name: 'statuses' });
    made.userId = res.body.id as string;
    return res;
  }],
  ['POST /api/v1/admin/users/{id}/tokens', async (t, made) => {
    const res = await post(t, `/api/v1/admin/users/${made.userId}/tokens`, { name: 'spare' });
    made.tokenId = res.body.id as string;
    return res;
  }],
  ['POST /api/v1/admin/tokens/{id}/revoke', (t, made) => post(t, `/api/v1/admin/tokens/${made.tokenId}/revoke`)],
  ['POST /api/v1/auth/session', async (t, made) => {
    const res = await request(t.baseUrl).post('/api/v1/auth/session').set('origin', t.baseUrl).send({ token: made.userToken });
    made.cookie = String(res.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    return res;
  }],
  ['GET /api/v1/auth/session', (t, made) => request(t.baseUrl).get('/api/v1/auth/session').set('cookie', made.cookie)],
  ['DELETE /api/v1/auth/session', (t, made) => request(t.baseUrl).delete('/api/v1/auth/session').set('cookie', made.cookie).set('origin', t.baseUrl)],
  ['POST /api/v1/workspaces', async (t, made) => {
    const res = await post(t, '/api/v1/workspaces', { name: 'statuses' });
    made.workspaceId = res.body.id as string;
    return res;
  }],
  ['GET /api/v1/workspaces', (t) => get(t, '/api/v1/workspaces')],
  ['POST /api/v1/admin/workspaces/{id}/members', (t, made) => post(t, `/api/v1/admin/workspaces/${made.workspaceId}/members`, { user_id: made.userId })],
  ['GET /api/v1/admin/workspaces/{id}/members', (t, made) => get(t, `/api/v1/admin/workspaces/${made.workspaceId}/members`)],
  ['DELETE /api/v1/admin/workspaces/{id}/members/{userId}', (t, made) =>
    request(t.baseUrl).delete(`/api/v1/admin/workspaces/${made.workspaceId}/members/${made.userId}`).set('authorization', ADMIN)],
  ['POST /api/v1/tasks', async (t, made) => {
    const res = await post(t, '/api/v1/tasks', { title: 'statuses', workspace_id: made.workspaceId });
    made.taskId = res.body.id as string;
    return res;
  }],
  ['GET /api/v1/tasks', (t) => get(t, '/api/v1/tasks')],
  ['GET /api/v1/tasks/{id}', (t, made) => get(t, `/api/v1/tasks/${made.taskId}`)],
  ['POST /api/v1/tasks/{id}/sessions', async (t, made) => {
    const res = await post(t, `/api/v1/tasks/${made.taskId}/sessions`);
    made.sessionId = res.body.id as string;
    return res;
  }],
  ['GET /api/v1/sessions/{id}', (t, made) => get(t, `/api/v1/sessions/${made.sessionId}`)],
  ['PATCH /api/v1/sessions/{id}', (t, made) => request(t.baseUrl).patch(`/api/v1/sessions/${made.sessionId}`).set('authorization', ADMIN).send({ state: 'RUNNING' })],
  ['POST /api/v1/sessions/{id}/turns', async (t, made) => {
    const res = await post(t, `/api/v1/sessions/${made.sessionId}/turns`);
    made.turnId = res.body.id as string;
    return res;
  }],
  ['POST /api/v1/clarification/request', async (t, made) => {
    const res = await post(t, '/api/v1/clarification/request', { session_id: made.sessionId, questions: ONE_QUESTION });
    made.pendingId = res.body.pending_id as string;
    return res;
  }],
  ['GET /api/v1/clarification', (t) => get(t, '/api/v1/clarification')],
  ['GET /api/v1/clarification/{id}', (t, made) => get(t, `/api/v1/clarification/${made.pendingId}`)],
  ['GET /api/v1/pending-interactions', (t) => get(t, '/api/v1/pending-interactions')],
  ['POST /api/v1/commands', async (t, made) => {
    const decisionRef = await decisionRefOf(t, made.sessionId, TEST_ADMIN_TOKEN);
    return post(t, '/api/v1/commands', {
      schema_version: 1,
      action: 'answer_decision',
      dry_run: true,
      target: { worker_id: made.sessionId },
      params: { decision_ref: decisionRef, selection: { option_refs: ['1'] } },
    });
  }],
  ['POST /api/v1/clarification/{id}/respond', (t, made) => post(t, `/api/v1/clarification/${made.pendingId}/respond`, { rejected: true })],
  ['GET /api/v1/clarification/{id}/wait', (t, made) => get(t, `/api/v1/clarification/${made.pendingId}/wait`)],
  ['GET /api/v1/clarification/{id}/audit', (t, made) => get(t, `/api/v1/clarification/${made.pendingId}/audit`)],
  ['POST /api/v1/clarification/{id}/cancel', async (t, made) => {
    const asked = await post(t, '/api/v1/clarification/request', { session_id: made.sessionId, questions: [{ ...ONE_QUESTION[0], id: 'again' }] });
    made.cancelledId = asked.body.pending_id as string;
    return post(t, `/api/v1/clarification/${made.cancelledId}/cancel`);
  }],
  ['GET /api/v1/sessions/{id}/messages', (t, made) => get(t, `/api/v1/sessions/${made.sessionId}/messages`)],
  ['POST /api/v1/sessions/{id}/turns/{turnId}/complete', (t, made) => post(t, `/api/v1/sessions/${made.sessionId}/turns/${made.turnId}/complete`)],
  ['POST /api/v1/workspaces/{id}/webhooks', async (t, made) => {
    const res = await post(t, `/api/v1/workspaces/${made.workspaceId}/webhooks`, { url: 'https://example.com/hook', events: ['asked'] });
    made.webhookId = res.body.id as string;
    return res;
  }],
  ['GET /api/v1/workspaces/{id}/webhooks', (t, made) => get(t, `/api/v1/workspaces/${made.workspaceId}/webhooks`)],
  ['GET /api/v1/webhooks/{id}', (t, made) => get(t, `/api/v1/webhooks/${made.webhookId}`)],
  ['PATCH /api/v1/webhooks/{id}', (t, made) => request(t.baseUrl).patch(`/api/v1/webhooks/${made.webhookId}`).set('authorization', ADMIN).send({ enabled: true })],
  ['GET /api/v1/webhooks/{id}/deliveries', (t, made) => get(t, `/api/v1/webhooks/${made.webhookId}/deliveries`)],
  ['DELETE /api/v1/webhooks/{id}', (t, made) => request(t.baseUrl).delete(`/api/v1/webhooks/${made.webhookId}`).set('authorization', ADMIN)],
  ['PUT /api/v1/workspaces/{id}/chat-destinations/{platform}', (t, made) =>
    request(t.baseUrl).put(`/api/v1/workspaces/${made.workspaceId}/chat-destinations/slack`).set('authorization', ADMIN).send({ destination: 'C0STATUS' })],
  ['GET /api/v1/workspaces/{id}/chat-destinations', (t, made) => get(t, `/api/v1/workspaces/${made.workspaceId}/chat-destinations`)],
  ['DELETE /api/v1/workspaces/{id}/chat-destinations/{platform}', (t, made) =>
    request(t.baseUrl).delete(`/api/v1/workspaces/${made.workspaceId}/chat-destinations/slack`).set('authorization', ADMIN)],
  ['POST /api/v1/admin/users/{id}/chat-links', (t, made) => post(t, `/api/v1/admin/users/${made.userId}/chat-links`, { platform: 'slack', account_id: 'U0STATUS' })],
  ['POST /api/v1/chat-links/confirm', async (t, made) => {
    // A link asked for in chat, as `/parley link` records it (the code's SHA-256, 15 minutes to confirm).
    const code = 'statuses-link-code-0123456789';
    await t.db.query(`INSERT INTO chat_link_requests (code_sha256, platform, platform_user_id, expires_at) VALUES ($1, 'telegram', '4242', now() + interval '15 minutes')`, [
      createHash('sha256').update(code).digest('hex'),
    ]);
    return request(t.baseUrl).post('/api/v1/chat-links/confirm').set('authorization', `Bearer ${made.userToken}`).send({ code });
  }],
  ['POST /api/v1/tasks/{id}/archive', (t, made) => post(t, `/api/v1/tasks/${made.taskId}/archive`)],
];

describe('OpenAPI success statuses match what the routes answer', () => {
  let t: TestApp;
  let document: Documented;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    document = (await request(t.baseUrl).get('/docs/openapi.json').expect(200)).body.paths as Documented;
  });
  afterAll(async () => {
    await t.close();
  });

  it('every documented route has a driver here', () => {
    const documented = Object.entries(document).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    expect(DRIVERS.map(([route]) => route).sort()).toEqual(documented.sort());
  });

  it('each route, driven once with a valid request, answers a success status its document lists', async () => {
    const user = await createUser(t, 'signer');
    const made = { userToken: user.token } as Made;
    const mismatches: string[] = [];
    for (const [route, drive] of DRIVERS) {
      const [method, path] = route.split(' ') as [string, string];
      const listed = Object.keys(document[path]?.[method.toLowerCase()]?.responses ?? {}).filter((status) => status.startsWith('2'));
      const res = await drive(t, made);
      if (!listed.includes(String(res.status))) mismatches.push(`${route}: answered ${res.status}, documented ${listed.join('/')} ${res.status >= 400 ? JSON.stringify(res.body) : ''}`);
    }
    expect(mismatches).toEqual([]);
  });
});
