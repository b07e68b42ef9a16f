/**
 * The `parley_session` cookie holds an opaque random id stored only as
 * SHA-256 in browser_sessions — never the personal access token — that ends at sign-out, at its idle
 * or absolute expiry, when its token is revoked and when its user is deleted; `Secure` when
 * PUBLIC_URL is https. GraphQL and MCP accept it like REST. A subscription opened with it ends when
 * it expires: it does not count as use, so it ends at the idle expiry unless requests push that
 * forward, and at the absolute expiry whatever they do.
 */
import { createHash } from 'node:crypto';
import request from 'supertest';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { browserHeaders, createUser, signIn } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';
import { gql, openStreams, subscribe } from '../../support/graphql.js';
import { connectMcp } from '../../support/mcp.js';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;

interface SessionRow {
  user_id: string;
  token_id: string;
  created_at: Date;
  last_seen_at: Date;
  idle_expires_at: Date;
  expires_at: Date;
}

describe('browser sessions', () => {
  let t: TestApp;

  const idOf = (cookie: string) => cookie.slice('parley_session='.length);
  const rowOf = async (cookie: string) =>
    (await t.db.query<SessionRow>(`SELECT user_id, token_id, created_at, last_seen_at, idle_expires_at, expires_at FROM browser_sessions WHERE session_sha256 = $1`, [sha256(idOf(cookie))])).rows[0];
  const me = (cookie: string) => request(t.baseUrl).get('/api/v1/workspaces').set('cookie', cookie);
  const tokenIdOf = async (token: string) =>
    (await t.db.query<{ id: string }>(`SELECT id FROM access_tokens WHERE token_sha256 = $1`, [sha256(token)])).rows[0]?.id;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', browserSessionIdleTimeoutMs: 3_600_000, browserSessionMaxAgeMs: 86_400_000 } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('the cookie is an opaque id, stored only as SHA-256 with its user, token, times and expiries', async () => {
    const alice = await createUser(t, 'alice');
    const res = await request(t.baseUrl).post('/api/v1/auth/session').send({ token: alice.token }).expect(200);
    const setCookie = (res.get('Set-Cookie') ?? [])[0];
    expect(setCookie).toMatch(/^parley_session=parley_bs_[A-Za-z0-9_-]{43}; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    const cookie = setCookie.split(';')[0];
    expect(cookie).not.toContain(alice.token);
    const row = await rowOf(cookie);
    expect(row).toEqual({
      user_id: alice.id,
      token_id: await tokenIdOf(alice.token),
      created_at: expect.any(Date),
      last_seen_at: expect.any(Date),
      idle_expires_at: expect.any(Date),
      expires_at: expect.any(Date),
    });
    const created = (row).created_at.getTime();
    expect((row).idle_expires_at.getTime() - created).toBeCloseTo(3_600_000, -3);
    expect((row).expires_at.getTime() - created).toBeCloseTo(86_400_000, -3);
    await me(cookie).expect(200);
  });

  it('a cookie holding the personal access token itself no longer authenticates', async () => {
    const bob = await createUser(t, 'bob');
    const res = await me(`parley_session=${bob.token}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'session is invalid or expired', code: 'UNAUTHENTICATED' });
  });

  it('sign-out deletes the session: the same cookie is refused afterwards', async () => {
    const carol = await createUser(t, 'carol');
    const cookie = await signIn(t, carol.token);
    await me(cookie).expect(200);
    await request(t.baseUrl).delete('/api/v1/auth/session').set(browserHeaders(t, cookie)).expect(200, { success: true });
    expect(await rowOf(cookie)).toBeUndefined();
    await me(cookie).expect(401, { error: 'session is invalid or expired', code: 'UNAUTHENTICATED' });
  });

  it('revoking the token that opened it ends the session; other tokens keep theirs', async () => {
    const dave = await createUser(t, 'dave');
    const cookie = await signIn(t, dave.token);
    const other = (await request(t.baseUrl).post(`/api/v1/admin/users/${dave.id}/tokens`).set('authorization', ADMIN).send({}).expect(201)).body as { token: string };
    const otherCookie = await signIn(t, other.token);
    await request(t.baseUrl).post(`/api/v1/admin/tokens/${await tokenIdOf(dave.token)}/revoke`).set('authorization', ADMIN).expect(200);
    expect(await rowOf(cookie)).toBeUndefined();
    await me(cookie).expect(401);
    await me(otherCookie).expect(200);
  });

  it('a session ends with its user', async () => {
    const erin = await createUser(t, 'erin');
    const cookie = await signIn(t, erin.token);
    await t.db.query(`DELETE FROM users WHERE id = $1`, [erin.id]);
    expect(await rowOf(cookie)).toBeUndefined();
    await me(cookie).expect(401);
  });

  it('idle expiry: use pushes it forward (never past the absolute expiry); once passed, the session is refused', async () => {
    const frank = await createUser(t, 'frank');
    const cookie = await signIn(t, frank.token);
    // As if the last request was long ago and the idle expiry is near.
    await t.db.query(
      `UPDATE browser_sessions SET last_seen_at = now() - interval '2 hours', idle_expires_at = now() + interval '1 minute' WHERE session_sha256 = $1`,
      [sha256(idOf(cookie))],
    );
    await me(cookie).expect(200);
    const pushed = (await rowOf(cookie));
    expect(pushed.idle_expires_at.getTime() - pushed.last_seen_at.getTime()).toBeCloseTo(3_600_000, -3);

    await t.db.query(`UPDATE browser_sessions SET last_seen_at = now() - interval '2 hours', expires_at = now() + interval '5 minutes' WHERE session_sha256 = $1`, [
      sha256(idOf(cookie)),
    ]);
    await me(cookie).expect(200);
    const capped = (await rowOf(cookie));
    expect(capped.idle_expires_at).toEqual(capped.expires_at);

    await t.db.query(`UPDATE browser_sessions SET idle_expires_at = now() - interval '1 second' WHERE session_sha256 = $1`, [sha256(idOf(cookie))]);
    await me(cookie).expect(401, { error: 'session is invalid or expired', code: 'UNAUTHENTICATED' });
  });

  it('absolute expiry: a session is refused once it is over, however recently used', async () => {
    const gina = await createUser(t, 'gina');
    const cookie = await signIn(t, gina.token);
    await t.db.query(`UPDATE browser_sessions SET expires_at = now() - interval '1 second' WHERE session_sha256 = $1`, [sha256(idOf(cookie))]);
    await me(cookie).expect(401, { error: 'session is invalid or expired', code: 'UNAUTHENTICATED' });
  });

  it('the ADMIN_TOKEN (for automation) opens no browser session', async () => {
    const res = await request(t.baseUrl).post('/api/v1/auth/session').send({ token: TEST_ADMIN_TOKEN });
    expect(res.status).toBe(401);
    expect(res.get('Set-Cookie')).toBeUndefined();
  });

  it('GraphQL and /mcp resolve the caller from the session cookie (the WebSocket upgrade: graphql-subscription spec)', async () => {
    const hank = await createUser(t, 'hank');
    const cookie = await signIn(t, hank.token);
    const workspace = await request(t.baseUrl).post('/api/v1/workspaces').set(browserHeaders(t, cookie)).send({ name: 'hank ws' }).expect(201);
    const viaGraphql = await gql<{ workspaces: Array<{ id: string; ownerId: string }> }>(t, '{ workspaces { id ownerId } }', undefined, undefined, {
      headers: browserHeaders(t, cookie),
    });
    expect(viaGraphql.status).toBe(200);
    expect(viaGraphql.body.data?.workspaces).toEqual([{ id: (workspace.body as { id: string }).id, ownerId: hank.id }]);
    const mcp = await connectMcp(t.baseUrl, { headers: browserHeaders(t, cookie) });
    try {
      const tasks = await mcp.call('list_tasks_kandev', {});
      expect(tasks.isError).toBe(false);
    } finally {
      await mcp.close();
    }
    await request(t.baseUrl).delete('/api/v1/auth/session').set(browserHeaders(t, cookie)).expect(200);
    const after = await gql(t, '{ workspaces { id } }', undefined, undefined, { headers: browserHeaders(t, cookie) });
    expect(after.status).toBe(401);
  });

  describe('the Secure attribute follows PUBLIC_URL', () => {
    it.each([
      ['https://parley.example.com', true],
      ['http://parley.internal:3000', false],
    ])('PUBLIC_URL=%s ⇒ Secure: %s', async (publicUrl, secure) => {
      const app = await startApp({ config: { authMode: 'enabled', publicUrl } });
      try {
        const ivan = await createUser(app, 'ivan');
        const res = await request(app.baseUrl).post('/api/v1/auth/session').send({ token: ivan.token }).expect(200);
        const setCookie = (res.get('Set-Cookie') ?? [])[0];
        expect(/; Secure(;|$)/.test(setCookie)).toBe(secure);
        const out = await request(app.baseUrl).delete('/api/v1/auth/session').set({ cookie: setCookie.split(';')[0], origin: publicUrl }).expect(200);
        expect(/; Secure(;|$)/.test((out.get('Set-Cookie') ?? [])[0])).toBe(secure);
      } finally {
        await app.close();
      }
    });
  });
});

describe('a subscription opened with the cookie ends when the browser session expires', () => {
  const IDLE_MS = 1_500;
  const MAX_AGE_MS = 4_500;
  /** How late an ending may be seen: the timer, the database read, the socket's close, this test's poll. */
  const SLACK_MS = 2_500;
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', browserSessionIdleTimeoutMs: IDLE_MS, browserSessionMaxAgeMs: MAX_AGE_MS } });
  });
  afterAll(async () => {
    await t.close();
  });

  const me = (cookie: string) => request(t.baseUrl).get('/api/v1/workspaces').set('cookie', cookie);

  async function signedInSubscription(name: string) {
    const user = await createUser(t, name);
    const signedInAt = Date.now();
    const cookie = await signIn(t, user.token);
    const subscription = subscribe(t, 'subscription { questionEvents { type pendingId } }', { headers: { cookie } });
    await subscription.connected;
    await openStreams(t, 1);
    return { cookie, subscription, signedInAt, openedAt: Date.now() };
  }

  const ended = (subscription: { completed: boolean; error: unknown }) => subscription.completed || subscription.error !== undefined;

  it('with no request since, it ends at the idle expiry (an open subscription is no use of the session)', async () => {
    const { cookie, subscription, signedInAt, openedAt } = await signedInSubscription('idle');
    try {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 2));
      expect(ended(subscription)).toBe(false);
      await eventually(() => (ended(subscription) ? true : undefined), IDLE_MS + SLACK_MS, 'the subscription ending');
      expect(Date.now() - signedInAt).toBeGreaterThanOrEqual(IDLE_MS);
      expect(Date.now() - openedAt).toBeLessThan(IDLE_MS + SLACK_MS);
      await openStreams(t, 0);
      await me(cookie).expect(401);
    } finally {
      await subscription.close();
    }
  });

  it('requests push the idle expiry forward and it lives on; it ends at the absolute expiry however recently used', async () => {
    const { cookie, subscription, signedInAt } = await signedInSubscription('busy');
    try {
      while (!ended(subscription)) {
        if (Date.now() - signedInAt > MAX_AGE_MS + SLACK_MS) throw new Error('the subscription outlived the maximum age');
        const res = await me(cookie);
        // A request of the live session keeps it (and the subscription) alive past any one idle timeout.
        if (Date.now() - signedInAt < MAX_AGE_MS - 200) expect(res.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 5));
      }
      const lived = Date.now() - signedInAt;
      expect(lived).toBeGreaterThanOrEqual(MAX_AGE_MS);
      expect(lived).toBeLessThan(MAX_AGE_MS + SLACK_MS);
      await openStreams(t, 0);
      await me(cookie).expect(401);
    } finally {
      await subscription.close();
    }
  });
});
