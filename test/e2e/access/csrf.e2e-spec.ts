/**
 * Only application/json bodies are accepted on every route (415); a
 * cookie-authenticated state-changing request must come from this server's origin (Origin matching
 * PUBLIC_URL or the Host, or Sec-Fetch-Site: same-origin), else 403;
 * a foreign Origin is refused whatever the credential (a CORS origin only without the cookie);
 * a form-encoded sign-in is 415 and a cross-origin one 403 (login CSRF). Each of the probe's requests
 * is replayed with the victim's cookie and `Origin: https://evil.example`.
 */
import request from 'supertest';
import WebSocket from 'ws';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, createUser, signIn, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql } from '../../support/graphql.js';

const EVIL = 'https://evil.example';
const CROSS_ORIGIN = { error: 'cross-origin request refused: its Origin is not this server', code: 'FORBIDDEN' };
const NO_ORIGIN = { error: "a request authenticated by the session cookie must carry this server's Origin (or Sec-Fetch-Site: same-origin)", code: 'FORBIDDEN' };

describe('CSRF', () => {
  let t: TestApp;
  let victim: { id: string; token: string };
  let cookie: string;
  let fixture: SessionFixture;
  let pendingId: string;

  const snapshot = async () => {
    const { rows } = await t.db.query<{ snapshot: string }>(
      `SELECT json_build_array(
         (SELECT count(*) FROM workspaces), (SELECT count(*) FROM tasks), (SELECT count(*) FROM task_session_turns),
         (SELECT count(*) FROM browser_sessions),
         (SELECT string_agg(metadata->>'status', ',' ORDER BY id) FROM task_session_messages),
         (SELECT string_agg(coalesce(archived_at::text, 'open'), ',' ORDER BY id) FROM tasks)
       )::text AS snapshot`,
    );
    return rows[0]?.snapshot;
  };
  const bundleStatus = async () =>
    (await t.db.query<{ status: string }>(`SELECT metadata->>'status' AS status FROM task_session_messages WHERE metadata->>'pending_id' = $1`, [pendingId])).rows.map(
      (row) => row.status,
    );

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    victim = await createUser(t, 'victim');
    cookie = await signIn(t, victim.token);
    fixture = await createRunningSession(t, { bearer: victim.token });
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${victim.token}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    pendingId = (asked.body as { pending_id: string }).pending_id;
  });
  afterAll(async () => {
    await t.close();
  });

  describe("the probe's requests, with the victim's cookie and Origin: https://evil.example", () => {
    const probes: Array<[string, () => request.Test]> = [
      ['form-encoded POST /api/v1/workspaces', () => request(t.baseUrl).post('/api/v1/workspaces').type('form').send('name=pwned')],
      ['form-encoded POST /api/v1/tasks', () => request(t.baseUrl).post('/api/v1/tasks').type('form').send('title=pwned')],
      [
        'text/plain POST /api/v1/sessions/:id/turns (supersedes pending questions)',
        () => request(t.baseUrl).post(`/api/v1/sessions/${fixture.sessionId}/turns`).set('content-type', 'text/plain').send('{}'),
      ],
      ['POST /api/v1/tasks/:id/archive (expires them)', () => request(t.baseUrl).post(`/api/v1/tasks/${fixture.taskId}/archive`)],
      ['JSON POST /api/v1/workspaces', () => request(t.baseUrl).post('/api/v1/workspaces').send({ name: 'pwned' })],
      ['JSON POST respond', () => request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ rejected: true })],
      ['DELETE /api/v1/auth/session (forced sign-out)', () => request(t.baseUrl).delete('/api/v1/auth/session')],
    ];

    it.each(probes)('%s ⇒ 403, nothing changed', async (_label, probe) => {
      const before = await snapshot();
      const res = await probe().set('cookie', cookie).set('origin', EVIL);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(CROSS_ORIGIN);
      expect(await snapshot()).toBe(before);
      expect(await bundleStatus()).toEqual(['pending', 'pending']);
    });

    it.each(probes)('%s without any Origin ⇒ 403 as well (the cookie alone is not enough)', async (_label, probe) => {
      const before = await snapshot();
      const res = await probe().set('cookie', cookie);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(NO_ORIGIN);
      expect(await snapshot()).toBe(before);
    });

    it('a GraphQL mutation and an MCP call with the cookie from another origin ⇒ 403 in their own shapes', async () => {
      const before = await snapshot();
      const graphql = await gql(t, `mutation { rejectQuestion(pendingId: "${pendingId}") { claimed } }`, undefined, undefined, { headers: { cookie, origin: EVIL } });
      expect(graphql.status).toBe(403);
      expect(graphql.body).toEqual({ data: null, errors: [{ message: CROSS_ORIGIN.error, extensions: { code: 'FORBIDDEN' } }] });
      const mcp = await request(t.baseUrl)
        .post('/mcp')
        .set({ cookie, origin: EVIL, accept: 'application/json, text/event-stream' })
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'answer_question_kandev', arguments: { pending_id: pendingId, rejected: true } } });
      expect(mcp.status).toBe(403);
      expect(mcp.body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: CROSS_ORIGIN.error }, id: null });
      expect(await snapshot()).toBe(before);
      expect(await bundleStatus()).toEqual(['pending', 'pending']);
    });
  });

  describe('same-origin browser requests with the cookie work', () => {
    it.each([
      ['Origin matching the Host', () => ({ origin: t.baseUrl })],
      ['Sec-Fetch-Site: same-origin', () => ({ 'sec-fetch-site': 'same-origin' })],
    ])('%s ⇒ the write happens', async (_label, headers) => {
      const res = await request(t.baseUrl).post('/api/v1/workspaces').set('cookie', cookie).set(headers()).send({ name: 'mine' });
      expect(res.status).toBe(201);
      expect((res.body as { owner_id: string }).owner_id).toBe(victim.id);
    });

    it('Sec-Fetch-Site: cross-site (no Origin) ⇒ 403', async () => {
      const res = await request(t.baseUrl).post('/api/v1/workspaces').set({ cookie, 'sec-fetch-site': 'cross-site' }).send({ name: 'pwned' });
      expect(res.status).toBe(403);
    });

    it('Origin: null (sandboxed frames) ⇒ 403', async () => {
      const res = await request(t.baseUrl).post('/api/v1/workspaces').set({ cookie, origin: 'null' }).send({ name: 'pwned' });
      expect(res.status).toBe(403);
    });

    it('reads need no Origin', async () => {
      await request(t.baseUrl).get('/api/v1/workspaces').set({ cookie, origin: EVIL }).expect(200);
    });
  });

  it('with PUBLIC_URL, its origin is accepted (behind a proxy the Host differs)', async () => {
    const app = await startApp({ config: { authMode: 'enabled', publicUrl: 'https://parley.example.com/base' } });
    try {
      const user = await createUser(app, 'proxied');
      const proxiedCookie = await signIn(app, user.token);
      await request(app.baseUrl).post('/api/v1/workspaces').set({ cookie: proxiedCookie, origin: 'https://parley.example.com' }).send({ name: 'ok' }).expect(201);
      await request(app.baseUrl).post('/api/v1/workspaces').set({ cookie: proxiedCookie, origin: 'http://parley.example.com' }).send({ name: 'no' }).expect(403);
    } finally {
      await app.close();
    }
  });

  describe('a foreign Origin is refused whatever the credential', () => {
    it('a JSON write with a bearer token and a foreign Origin ⇒ 403, nothing written', async () => {
      const before = await snapshot();
      const res = await request(t.baseUrl).post('/api/v1/workspaces').set({ authorization: `Bearer ${victim.token}`, origin: EVIL }).send({ name: 'api' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(CROSS_ORIGIN);
      expect(await snapshot()).toBe(before);
    });

    it('a bearer write without an Origin (no browser page sends it) succeeds', async () => {
      await request(t.baseUrl).post('/api/v1/workspaces').set({ authorization: `Bearer ${victim.token}` }).send({ name: 'api' }).expect(201);
    });

    it('from a CORS origin, a bearer write succeeds and a cookie write is still refused (CORS carries no credentials)', async () => {
      const app = await startApp({ config: { authMode: 'enabled', corsOrigins: [EVIL] } });
      try {
        const user = await createUser(app, 'dashboard');
        const dashboardCookie = await signIn(app, user.token);
        await request(app.baseUrl).post('/api/v1/workspaces').set({ authorization: `Bearer ${user.token}`, origin: EVIL }).send({ name: 'ok' }).expect(201);
        await request(app.baseUrl).post('/api/v1/workspaces').set({ cookie: dashboardCookie, origin: EVIL }).send({ name: 'no' }).expect(403);
      } finally {
        await app.close();
      }
    });

    it('a WebSocket upgrade with the cookie from a foreign Origin ⇒ 403 (no CORS preflight guards a WebSocket)', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(`${t.baseUrl.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { headers: { cookie, origin: EVIL } });
        socket.once('unexpected-response', (_request, response) => {
          resolve(response.statusCode ?? 0);
          socket.terminate();
        });
        socket.once('upgrade', () => {
          resolve(101);
          socket.terminate();
        });
        socket.once('error', reject);
      });
      expect(status).toBe(403);
    });

    it('another loopback port is another origin', async () => {
      const port = new URL(t.baseUrl).port;
      const other = `http://127.0.0.1:${Number(port) === 5173 ? 5174 : 5173}`;
      await request(t.baseUrl).post('/api/v1/workspaces').set({ cookie, origin: other }).send({ name: 'no' }).expect(403);
    });
  });

  describe('only application/json bodies (415), whatever the credential', () => {
    it.each([
      ['form-encoded', 'application/x-www-form-urlencoded', 'name=x', 'Content-Type "application/x-www-form-urlencoded"'],
      ['multipart', 'multipart/form-data; boundary=b', '--b--', 'Content-Type "multipart/form-data; boundary=b"'],
      ['text/plain', 'text/plain', '{"name":"x"}', 'Content-Type "text/plain"'],
      ['JSON in another charset', 'application/json; charset=latin1', '{"name":"x"}', 'Content-Type "application/json; charset=latin1"'],
      ['application/graphql', 'application/graphql', '{ workspaces { id } }', 'Content-Type "application/graphql"'],
    ])('%s ⇒ 415, nothing written', async (_label, type, body, got) => {
      const before = await snapshot();
      for (const path of ['/api/v1/workspaces', '/graphql', '/mcp']) {
        const res = await request(t.baseUrl).post(path).set({ authorization: `Bearer ${victim.token}`, 'content-type': type }).send(body);
        expect({ path, status: res.status }).toEqual({ path, status: 415 });
        expect(JSON.stringify(res.body)).toContain(`only application/json request bodies are accepted (got ${got})`.replace(/"/g, '\\"'));
      }
      expect(await snapshot()).toBe(before);
    });

    it('a body without any Content-Type ⇒ 415', async () => {
      const res = await fetch(`${t.baseUrl}/api/v1/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${victim.token}` }, body: new Uint8Array(Buffer.from('{"name":"x"}')) });
      expect(res.status).toBe(415);
      expect(await res.json()).toEqual({ error: 'only application/json request bodies are accepted (got no Content-Type)', code: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    it('an empty state-changing request declaring another Content-Type ⇒ 415; without one it is fine', async () => {
      const session = await createRunningSession(t, { bearer: victim.token });
      await request(t.baseUrl).post(`/api/v1/sessions/${session.sessionId}/turns`).set({ authorization: `Bearer ${victim.token}`, 'content-type': 'text/plain' }).expect(415);
      await request(t.baseUrl).post(`/api/v1/sessions/${session.sessionId}/turns`).set({ authorization: `Bearer ${victim.token}` }).expect(201);
    });

    it('application/json; charset=utf-8 is JSON', async () => {
      const res = await request(t.baseUrl)
        .post('/api/v1/workspaces')
        .set({ authorization: `Bearer ${victim.token}`, 'content-type': 'application/json; charset=UTF-8' })
        .send('{"name":"charset"}');
      expect(res.status).toBe(201);
    });
  });

  describe('login CSRF', () => {
    it('a form-encoded sign-in ⇒ 415, no cookie', async () => {
      const res = await request(t.baseUrl).post('/api/v1/auth/session').type('form').send(`token=${victim.token}`);
      expect(res.status).toBe(415);
      expect(res.get('Set-Cookie')).toBeUndefined();
    });

    it('a cross-origin sign-in (form or JSON) ⇒ 403, no cookie, no session', async () => {
      const before = await snapshot();
      for (const res of [
        await request(t.baseUrl).post('/api/v1/auth/session').set('origin', EVIL).type('form').send(`token=${victim.token}`),
        await request(t.baseUrl).post('/api/v1/auth/session').set('origin', EVIL).send({ token: victim.token }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(CROSS_ORIGIN);
        expect(res.get('Set-Cookie')).toBeUndefined();
      }
      expect(await snapshot()).toBe(before);
    });

    it('a same-origin sign-in works', async () => {
      const res = await request(t.baseUrl).post('/api/v1/auth/session').set('origin', t.baseUrl).send({ token: victim.token });
      expect(res.status).toBe(200);
      expect(res.get('Set-Cookie')).toHaveLength(1);
    });
  });
});
