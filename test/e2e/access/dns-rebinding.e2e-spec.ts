/**
 * DNS rebinding: with AUTH_MODE=disabled every request acts as the unscoped identity, so a page on a
 * name that resolves to 127.0.0.1 would be same-origin with the server. Browser-shaped requests of
 * such a page (`Host` and `Origin` on the rebound name) are refused on every surface in its own error
 * shape, before any work; the loopback names, PUBLIC_URL's host and ALLOWED_HOSTS are served; a
 * foreign `Origin` is refused on every write and every WebSocket upgrade.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import WebSocket from 'ws';
import { webAssetsRoot } from '../../../apps/server/src/http/web-assets.js';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, createUser, TWO_QUESTIONS } from '../../support/fixtures.js';

const FORBIDDEN_HOST = (host: string) =>
  `Host ${JSON.stringify(host)} is not served here: use a loopback address, PUBLIC_URL's host, or a name listed in ALLOWED_HOSTS`;
const CROSS_ORIGIN = 'cross-origin request refused: its Origin is not this server';
const MCP_ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } };

/** What a WebSocket upgrade is answered: the HTTP status of a refusal, or 101. */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', { headers });
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('upgrade', (response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', (error) => reject(error));
  });
}

describe('DNS rebinding on the default start (AUTH_MODE=disabled)', () => {
  let t: TestApp;
  let port: string;
  let rebound: string;
  let sessionToken: string;
  let pendingId: string;

  const counts = async () =>
    (
      await t.db.query<{ counts: string }>(
        `SELECT json_build_array((SELECT count(*) FROM workspaces), (SELECT count(*) FROM tasks), (SELECT count(*) FROM task_sessions),
           (SELECT string_agg(metadata->>'status', ',' ORDER BY id) FROM task_session_messages))::text AS counts`,
      )
    ).rows[0]?.counts;

  beforeAll(async () => {
    t = await startApp();
    port = new URL(t.baseUrl).port;
    rebound = `rebound.example:${port}`;
    const fixture = await createRunningSession(t);
    sessionToken = fixture.agentToken;
    const asked = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    pendingId = (asked.body as { pending_id: string }).pending_id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** The page's own requests: Host and Origin both on the rebound name. */
  const page = () => ({ host: rebound, origin: `http://${rebound}` });

  const asset = () => readdirSync(path.join(webAssetsRoot(), 'assets')).find((file) => file.endsWith('.js'));

  const restProbes: Array<[string, () => request.Test]> = [
    ['GET /api/v1/clarification (the pending questions)', () => request(t.baseUrl).get('/api/v1/clarification')],
    ['GET /api/v1/clarification/:id', () => request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`)],
    ['POST /api/v1/clarification/:id/respond', () => request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ rejected: true })],
    ['POST /api/v1/workspaces', () => request(t.baseUrl).post('/api/v1/workspaces').send({ name: 'pwned' })],
    ['POST /api/v1/workspaces with a body that is not JSON (refused before parsing)', () => request(t.baseUrl).post('/api/v1/workspaces').set('content-type', 'application/json').send('{')],
    ['GET /api/v1/pending-interactions', () => request(t.baseUrl).get('/api/v1/pending-interactions')],
    ['POST /api/v1/commands', () => request(t.baseUrl).post('/api/v1/commands').send({})],
    ['GET /api/v1/tasks', () => request(t.baseUrl).get('/api/v1/tasks')],
    ['GET / (the inbox)', () => request(t.baseUrl).get('/')],
    ['GET /assets/<the inbox script>', () => request(t.baseUrl).get(`/assets/${asset()}`)],
    ['GET /graphiql', () => request(t.baseUrl).get('/graphiql')],
    ['GET /docs', () => request(t.baseUrl).get('/docs')],
    ['GET /docs/json', () => request(t.baseUrl).get('/docs/json')],
    ['GET /metrics', () => request(t.baseUrl).get('/metrics')],
    ['GET /readyz', () => request(t.baseUrl).get('/readyz')],
    ['GET /no-such-route', () => request(t.baseUrl).get('/no-such-route')],
    ['OPTIONS /api/v1/clarification (a preflight)', () => request(t.baseUrl).options('/api/v1/clarification').set('access-control-request-method', 'POST')],
  ];

  it.each(restProbes)('%s ⇒ 403 FORBIDDEN naming the Host, nothing changed', async (_label, probe) => {
    const before = await counts();
    const res = await probe().set(page());
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: FORBIDDEN_HOST(rebound), code: 'FORBIDDEN' });
    expect(await counts()).toBe(before);
  });

  it('POST /graphql (a query and a mutation) ⇒ 403 in the GraphQL shape, nothing changed', async () => {
    const before = await counts();
    for (const query of ['{ pendingQuestions { nodes { pendingId } } }', `mutation { rejectQuestion(pendingId: "${pendingId}") { claimed } }`]) {
      const res = await request(t.baseUrl).post('/graphql').set(page()).send({ query });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ data: null, errors: [{ message: FORBIDDEN_HOST(rebound), extensions: { code: 'FORBIDDEN' } }] });
    }
    expect(await counts()).toBe(before);
  });

  it('POST /mcp initialize and an answer, POST /mcp/session ⇒ 403 as JSON-RPC errors, nothing changed', async () => {
    const before = await counts();
    const answer = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'answer_question_kandev', arguments: { pending_id: pendingId, rejected: true } } };
    for (const [route, body, extra] of [
      ['/mcp', INITIALIZE, {}],
      ['/mcp', answer, {}],
      ['/mcp/session', INITIALIZE, { authorization: `Bearer ${sessionToken}` }],
    ] as const) {
      const res = await request(t.baseUrl).post(route).set({ ...page(), ...extra, accept: MCP_ACCEPT }).send(body);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: FORBIDDEN_HOST(rebound) }, id: null });
    }
    expect(await counts()).toBe(before);
  });

  it('a GraphQL WebSocket upgrade on the rebound Host ⇒ 403', async () => {
    expect(await upgradeStatus(`ws://127.0.0.1:${port}/graphql`, page())).toBe(403);
  });

  it('the Host check comes first: a rebound request without any Origin is refused too, and /healthz stays open', async () => {
    await request(t.baseUrl).get('/api/v1/clarification').set('host', rebound).expect(403);
    await request(t.baseUrl).get('/api/v1/clarification').set('host', 'REBOUND.example').expect(403);
    await request(t.baseUrl).get('/healthz').set(page()).expect(200);
  });

  it.each([
    ['localhost:<port>', () => `localhost:${port}`],
    ['127.0.0.1:<port>', () => `127.0.0.1:${port}`],
    ['127.1.2.3:<port>', () => `127.1.2.3:${port}`],
    ['[::1]:<port>', () => `[::1]:${port}`],
    ['LOCALHOST (no port, any case)', () => 'LOCALHOST'],
  ])('the loopback name %s is served', async (_label, host) => {
    const res = await request(t.baseUrl).get('/api/v1/clarification').set('host', host()).expect(200);
    expect((res.body as { bundles: unknown[] }).bundles).toHaveLength(1);
  });

  it.each([
    ['a name that only starts like localhost', 'localhost.rebound.example'],
    ['an address outside 127/8', '10.0.0.1'],
    ['garbage', 'a b'],
  ])('%s is refused', async (_label, host) => {
    await request(t.baseUrl).get('/api/v1/clarification').set('host', host).expect(403);
  });

  describe('Origin on the served Host', () => {
    it('a write from a foreign Origin ⇒ 403, from the same origin ⇒ done', async () => {
      const before = await counts();
      const refused = await request(t.baseUrl).post('/api/v1/workspaces').set('origin', 'http://evil.example').send({ name: 'pwned' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: CROSS_ORIGIN, code: 'FORBIDDEN' });
      expect(await counts()).toBe(before);
      await request(t.baseUrl).post('/api/v1/workspaces').set('origin', t.baseUrl).send({ name: 'mine' }).expect(201);
    });

    it('a write from a page on another loopback port ⇒ 403', async () => {
      const other = `http://localhost:${Number(port) === 5173 ? 5174 : 5173}`;
      await request(t.baseUrl).post('/api/v1/workspaces').set('origin', other).send({ name: 'pwned' }).expect(403);
    });

    it('a WebSocket upgrade from a foreign Origin ⇒ 403; from the same origin, or with no Origin (no browser), it opens', async () => {
      const url = `ws://127.0.0.1:${port}/graphql`;
      expect(await upgradeStatus(url, { origin: 'http://evil.example' })).toBe(403);
      expect(await upgradeStatus(url, { origin: t.baseUrl })).toBe(101);
      expect(await upgradeStatus(url, {})).toBe(101);
    });
  });
});

describe('the served names are configurable', () => {
  it('PUBLIC_URL’s host and ALLOWED_HOSTS (with a port, without one, a domain and its subdomains) are served; others are not', async () => {
    const t = await startApp({ config: { publicUrl: 'https://parley.example.com', allowedHosts: ['parley.internal:8080', 'proxy.lan', '.corp.example'] } });
    try {
      const status = async (host: string) => (await request(t.baseUrl).get('/api/v1/clarification').set('host', host)).status;
      expect(await status('parley.example.com')).toBe(200);
      expect(await status('parley.internal:8080')).toBe(200);
      expect(await status('parley.internal:8081')).toBe(403);
      expect(await status('proxy.lan:1234')).toBe(200);
      expect(await status('corp.example')).toBe(200);
      expect(await status('a.b.corp.example:443')).toBe(200);
      expect(await status('evilcorp.example')).toBe(403);
      expect(await status('rebound.example')).toBe(403);
      // A page on an allowed name may write; one on PUBLIC_URL's origin too.
      await request(t.baseUrl).post('/api/v1/workspaces').set({ host: 'proxy.lan', origin: 'http://proxy.lan' }).send({ name: 'a' }).expect(201);
      await request(t.baseUrl).post('/api/v1/workspaces').set({ host: 'parley.example.com', origin: 'https://parley.example.com' }).send({ name: 'b' }).expect(201);
    } finally {
      await t.close();
    }
  });

  it('with AUTH_MODE=enabled any Host is served (a rebound page holds no credential) unless ALLOWED_HOSTS is set, checked before the credential', async () => {
    const open = await startApp({ config: { authMode: 'enabled' } });
    try {
      const user = await createUser(open, 'someone');
      await request(open.baseUrl).get('/api/v1/workspaces').set({ host: 'parley.example.net', authorization: `Bearer ${user.token}` }).expect(200);
      await request(open.baseUrl).get('/api/v1/workspaces').set({ host: 'parley.example.net' }).expect(401);
    } finally {
      await open.close();
    }
    const listed = await startApp({ config: { authMode: 'enabled', allowedHosts: ['parley.example.net'] } });
    try {
      const user = await createUser(listed, 'someone');
      await request(listed.baseUrl).get('/api/v1/workspaces').set({ host: 'parley.example.net', authorization: `Bearer ${user.token}` }).expect(200);
      const refused = await request(listed.baseUrl).get('/api/v1/workspaces').set({ host: 'other.example.net' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: FORBIDDEN_HOST('other.example.net'), code: 'FORBIDDEN' });
      await request(listed.baseUrl).get('/api/v1/workspaces').set({ host: 'other.example.net', authorization: `Bearer ${user.token}` }).expect(403);
    } finally {
      await listed.close();
    }
  });
});
