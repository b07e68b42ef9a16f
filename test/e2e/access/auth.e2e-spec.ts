/**
 * Authentication (AUTH_MODE=enabled): bearer tokens, the browser session cookie, the admin API and
 * the identity CLI, all against the real application on a real PostgreSQL database. The CLI runs in
 * this process (runCli, what the `parley` entry point runs, with its own application context on the
 * same database), as a spawned Node process per call is slow (docs/benchmarks.md, "Figures behind bounds in the code");
 * test/e2e/operations/cli.e2e-spec.ts runs the real binary.
 */
import { createHash } from 'node:crypto';
import request from 'supertest';
import { runCli } from '../../../apps/server/src/cli/cli-runner.js';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { signIn } from '../../support/fixtures.js';

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PAT = /^parley_pat_[A-Za-z0-9_-]{43}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const JSON_TYPE = /^application\/json/;

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('authentication (AUTH_MODE=enabled)', () => {
  let t: TestApp;

  async function cli(...args: string[]): Promise<CliResult> {
    const result = { code: -1, stdout: '', stderr: '' };
    const env = { ...process.env, DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent' };
    const stdout = { write: (text: string) => (result.stdout += text) };
    const stderr = { write: (text: string) => (result.stderr += text) };
    result.code = await runCli([...args, '--json'], { env, stdout, stderr });
    return result;
  }

  async function createUser(name: string): Promise<string> {
    const res = await request(t.baseUrl).post('/api/v1/admin/users').set('Authorization', ADMIN).send({ name });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  async function createToken(userId: string, name = 'test'): Promise<{ id: string; token: string }> {
    const res = await request(t.baseUrl)
      .post(`/api/v1/admin/users/${userId}/tokens`)
      .set('Authorization', ADMIN)
      .send({ name });
    expect(res.status).toBe(201);
    return res.body as { id: string; token: string };
  }

  async function countRows(table: 'users' | 'access_tokens'): Promise<number> {
    const result = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    return result.rows[0]?.n ?? -1;
  }

  async function tokenRow(id: string) {
    const result = await t.db.query<{ user_id: string; name: string; token_sha256: string; last_used_at: Date | null; revoked_at: Date | null }>(
      `SELECT user_id, name, token_sha256, last_used_at, revoked_at FROM access_tokens WHERE id = $1`,
      [id],
    );
    return result.rows[0];
  }

  function expectUnauthorized(res: request.Response, error: string): void {
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(JSON_TYPE);
    expect(res.body).toEqual({ error, code: 'UNAUTHENTICATED' });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="parley"');
    expect(res.get('Set-Cookie')).toBeUndefined();
  }

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('bearer credentials', () => {
    it('refuses a request without any credential: 401 with WWW-Authenticate', async () => {
      for (const url of ['/api/v1/tasks', '/api/v1/workspaces', '/api/v1/tasks/some-id', '/api/v1/sessions/some-id']) {
        expectUnauthorized(await request(t.baseUrl).get(url), 'authentication required');
      }
      expectUnauthorized(
        await request(t.baseUrl).post('/api/v1/admin/users').send({ name: 'nobody' }),
        'authentication required',
      );
    });

    it('keeps public routes public', async () => {
      await request(t.baseUrl).get('/healthz').expect(200, { status: 'ok' });
    });

    it('refuses a garbage, unknown or malformed bearer: 401 with WWW-Authenticate', async () => {
      expectUnauthorized(
        await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', 'Bearer garbage'),
        'token is invalid or revoked',
      );
      expectUnauthorized(
        await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', `Bearer parley_pat_${'A'.repeat(43)}`),
        'token is invalid or revoked',
      );
      expectUnauthorized(
        await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}x`),
        'token is invalid or revoked',
      );
      expectUnauthorized(
        await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', `Basic ${TEST_ADMIN_TOKEN}`),
        'authentication required',
      );
      expectUnauthorized(await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', 'Bearer'), 'authentication required');
    });

    it('accepts the ADMIN_TOKEN as an unscoped admin', async () => {
      await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', ADMIN).expect(200, { tasks: [], next_cursor: '' });
      const res = await request(t.baseUrl).post('/api/v1/admin/users').set('Authorization', ADMIN).send({ name: 'admin-made' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(UUID), name: 'admin-made' });
      const rows = await t.db.query(`SELECT id, name FROM users WHERE id = $1`, [(res.body as { id: string }).id]);
      expect(rows.rows).toEqual([{ id: (res.body as { id: string }).id, name: 'admin-made' }]);
    });

    it('accepts a personal access token and records last_used_at on first use', async () => {
      const userId = await createUser('pat-user');
      const created = await createToken(userId, 'laptop');
      expect(created).toEqual({ id: expect.stringMatching(UUID), token: expect.stringMatching(PAT) });

      const before = await tokenRow(created.id);
      expect(before).toEqual({ user_id: userId, name: 'laptop', token_sha256: sha256(created.token), last_used_at: null, revoked_at: null });

      const started = Date.now();
      await request(t.baseUrl).get('/api/v1/workspaces').set('Authorization', `Bearer ${created.token}`).expect(200, { workspaces: [], next_cursor: '' });
      const after = await tokenRow(created.id);
      expect(after?.last_used_at).toBeInstanceOf(Date);
      expect(Math.abs((after?.last_used_at as Date).getTime() - started)).toBeLessThan(10_000);
      expect(after?.revoked_at).toBeNull();
    });

    it('refuses a token revoked through the admin API', async () => {
      const userId = await createUser('revoked-by-api');
      const created = await createToken(userId);
      const bearer = `Bearer ${created.token}`;
      await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', bearer).expect(200, { tasks: [], next_cursor: '' });

      const revoked = await request(t.baseUrl).post(`/api/v1/admin/tokens/${created.id}/revoke`).set('Authorization', ADMIN);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ id: created.id, revoked_at: expect.stringMatching(ISO) });
      const row = await tokenRow(created.id);
      expect(row?.revoked_at?.toISOString()).toBe((revoked.body as { revoked_at: string }).revoked_at);

      expectUnauthorized(await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', bearer), 'token is invalid or revoked');

      // Revoking again keeps the first revocation time.
      const again = await request(t.baseUrl).post(`/api/v1/admin/tokens/${created.id}/revoke`).set('Authorization', ADMIN);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(revoked.body);

      // Other tokens of the same user keep working.
      const other = await createToken(userId);
      await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', `Bearer ${other.token}`).expect(200);
    });

    it('refuses a token revoked through the CLI', async () => {
      const userId = await createUser('revoked-by-cli');
      const created = await createToken(userId);
      const bearer = `Bearer ${created.token}`;
      await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', bearer).expect(200);

      const result = await cli('tokens:revoke', created.id);
      expect(result.code).toBe(0);
      const printed = JSON.parse(result.stdout) as { id: string; revoked_at: string };
      expect(printed).toEqual({ id: created.id, revoked_at: expect.stringMatching(ISO) });
      expect((await tokenRow(created.id))?.revoked_at?.toISOString()).toBe(printed.revoked_at);

      expectUnauthorized(await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', bearer), 'token is invalid or revoked');
    });
  });

  describe('tokens are hashed at rest', () => {
    it('stores only SHA-256 of every token, in no table as plain text', async () => {
      const userId = await createUser('hash-check');
      const viaApi = await createToken(userId, 'api');
      const viaCli = await cli('tokens:create', '--user', userId, '--name', 'cli');
      expect(viaCli.code).toBe(0);
      const cliToken = (JSON.parse(viaCli.stdout) as { token: string }).token;
      const tokens = [viaApi.token, cliToken];
      const browserSessionIds: string[] = [];

      // Use them: as bearer, as cookie, and to open a browser session; leave traces everywhere we can.
      for (const token of [viaApi.token, cliToken]) {
        const ws = await request(t.baseUrl).post('/api/v1/workspaces').set('Authorization', `Bearer ${token}`).send({ name: 'hash ws' });
        expect(ws.status).toBe(201);
        const task = await request(t.baseUrl).post('/api/v1/tasks').set('Authorization', `Bearer ${token}`).send({ title: 'hash task' });
        expect(task.status).toBe(201);
        const session = await request(t.baseUrl)
          .post(`/api/v1/tasks/${(task.body as { id: string }).id}/sessions`)
          .set('Authorization', `Bearer ${token}`)
          .send({});
        expect(session.status).toBe(201);
        tokens.push((session.body as { agent_token: string }).agent_token);
        const cookie = await signIn(t, token);
        await request(t.baseUrl).get('/api/v1/tasks').set('Cookie', cookie).expect(200);
        browserSessionIds.push(cookie.slice('parley_session='.length));
      }
      expect(tokens).toHaveLength(4);
      expect(browserSessionIds).toHaveLength(2);

      const tables = await t.db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
      );
      const names = tables.rows.map((row) => row.table_name);
      expect(names).toEqual(expect.arrayContaining(['access_tokens', 'users', 'tasks', 'task_sessions', 'workspaces']));
      const dump: string[] = [];
      for (const name of names) {
        const rows = await t.db.query<{ row: string }>(`SELECT row_to_json(x)::text AS row FROM "${name}" x`);
        dump.push(...rows.rows.map((row) => row.row));
      }
      const text = dump.join('\n');
      expect(text.length).toBeGreaterThan(0);
      for (const token of [...tokens, ...browserSessionIds, TEST_ADMIN_TOKEN]) {
        expect(text).not.toContain(token);
        // Neither the secret part without its prefix.
        expect(text).not.toContain(token.replace(/^parley_(pat|sat|bs)_/, ''));
      }
      const sessionHashes = await t.db.query<{ session_sha256: string }>(`SELECT session_sha256 FROM browser_sessions`);
      expect(sessionHashes.rows.map((row) => row.session_sha256)).toEqual(expect.arrayContaining(browserSessionIds.map(sha256)));

      const stored = await t.db.query<{ token_sha256: string }>(`SELECT token_sha256 FROM access_tokens WHERE user_id = $1 ORDER BY name`, [userId]);
      expect(stored.rows.map((row) => row.token_sha256)).toEqual([sha256(viaApi.token), sha256(cliToken)]);
      const agentHashes = await t.db.query<{ agent_token_sha256: string }>(`SELECT agent_token_sha256 FROM task_sessions`);
      expect(agentHashes.rows.map((row) => row.agent_token_sha256)).toEqual(
        expect.arrayContaining([sha256(tokens[2]), sha256(tokens[3])]),
      );
    });
  });

  describe('browser session cookie', () => {
    it('exchanges a valid token for an opaque, expiring HttpOnly SameSite=Lax session cookie that authenticates on its own', async () => {
      const userId = await createUser('cookie-user');
      const created = await createToken(userId);

      const res = await request(t.baseUrl).post('/api/v1/auth/session').send({ token: created.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      const cookies = res.get('Set-Cookie');
      expect(cookies).toHaveLength(1);
      const cookie = (cookies as string[])[0];
      expect(cookie).toMatch(/^parley_session=parley_bs_[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
      expect(cookie).not.toContain(created.token);

      // The cookie alone (no Authorization header) authenticates, as this user.
      const nameValue = cookie.split(';')[0];
      const ws = await request(t.baseUrl).post('/api/v1/workspaces').set('Cookie', nameValue).set('Origin', t.baseUrl).send({ name: 'from cookie' });
      expect(ws.status).toBe(201);
      expect((ws.body as { owner_id: string }).owner_id).toBe(userId);
      const list = await request(t.baseUrl).get('/api/v1/workspaces').set('Cookie', nameValue);
      expect(list.status).toBe(200);
      expect((list.body as { workspaces: { id: string }[] }).workspaces.map((w) => w.id)).toEqual([(ws.body as { id: string }).id]);

      // Logging out clears the cookie (an expired, empty one with the same attributes) and ends the session.
      const out = await request(t.baseUrl).delete('/api/v1/auth/session').set('Cookie', nameValue).set('Origin', t.baseUrl);
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ success: true });
      const cleared = out.get('Set-Cookie');
      expect(cleared).toHaveLength(1);
      const clearedCookie = (cleared as string[])[0];
      expect(clearedCookie).toMatch(/^parley_session=;/);
      expect(clearedCookie).toMatch(/; Path=\/(;|$)/);
      expect(clearedCookie).toMatch(/; HttpOnly(;|$)/);
      expect(clearedCookie).toMatch(/; SameSite=Lax(;|$)/);
      const expires = /; Expires=([^;]+)/.exec(clearedCookie)?.[1];
      const maxAge = /; Max-Age=(-?\d+)/.exec(clearedCookie)?.[1];
      expect(expires !== undefined || maxAge !== undefined).toBe(true);
      if (expires !== undefined) expect(Date.parse(expires)).toBeLessThan(Date.now());
      if (maxAge !== undefined) expect(Number(maxAge)).toBeLessThanOrEqual(0);
      expectUnauthorized(await request(t.baseUrl).get('/api/v1/workspaces').set('Cookie', nameValue), 'session is invalid or expired');
    });

    it('refuses an invalid token with 401 and sets no cookie', async () => {
      expectUnauthorized(
        await request(t.baseUrl).post('/api/v1/auth/session').send({ token: 'parley_pat_not-a-real-token' }),
        'token is invalid or revoked',
      );
      expectUnauthorized(await request(t.baseUrl).post('/api/v1/auth/session').send({ token: 'garbage' }), 'token is invalid or revoked');
    });

    it('refuses to open a session with a revoked token', async () => {
      const userId = await createUser('cookie-revoked');
      const created = await createToken(userId);
      await request(t.baseUrl).post(`/api/v1/admin/tokens/${created.id}/revoke`).set('Authorization', ADMIN).expect(200);
      expectUnauthorized(await request(t.baseUrl).post('/api/v1/auth/session').send({ token: created.token }), 'token is invalid or revoked');
    });

    it('refuses a garbage cookie', async () => {
      expectUnauthorized(
        await request(t.baseUrl).get('/api/v1/tasks').set('Cookie', 'parley_session=garbage'),
        'session is invalid or expired',
      );
    });

    it('validates the session body', async () => {
      const res = await request(t.baseUrl).post('/api/v1/auth/session').send({});
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toMatch(/^token /);
      expect(res.get('Set-Cookie')).toBeUndefined();
    });
  });

  describe('admin routes', () => {
    it('answers 404 to a user token on every admin route and writes nothing', async () => {
      const userId = await createUser('not-an-admin');
      const created = await createToken(userId);
      const bearer = `Bearer ${created.token}`;
      const users = await countRows('users');
      const tokens = await countRows('access_tokens');

      const calls = [
        request(t.baseUrl).post('/api/v1/admin/users').set('Authorization', bearer).send({ name: 'sneaky' }),
        request(t.baseUrl).post(`/api/v1/admin/users/${userId}/tokens`).set('Authorization', bearer).send({ name: 'extra' }),
        request(t.baseUrl).post(`/api/v1/admin/tokens/${created.id}/revoke`).set('Authorization', bearer),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'resource not found', code: 'NOT_FOUND' });
      }
      expect(await countRows('users')).toBe(users);
      expect(await countRows('access_tokens')).toBe(tokens);
      expect((await tokenRow(created.id))?.revoked_at).toBeNull();
    });

    it('refuses a missing name with 400 naming the field, writing no row', async () => {
      const users = await countRows('users');
      for (const body of [{}, { name: '' }, { name: 42 }]) {
        const res = await request(t.baseUrl).post('/api/v1/admin/users').set('Authorization', ADMIN).send(body);
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toMatch(JSON_TYPE);
        expect(Object.keys(res.body as object)).toEqual(['error', 'code']);
        expect((res.body as { error: string }).error).toMatch(/^name /);
      }
      expect(await countRows('users')).toBe(users);
    });

    it('refuses an unknown field with 400 naming the field, writing no row', async () => {
      const users = await countRows('users');
      const res = await request(t.baseUrl).post('/api/v1/admin/users').set('Authorization', ADMIN).send({ name: 'eve', role: 'admin' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'role is not an allowed field', code: 'VALIDATION_ERROR' });
      expect(await countRows('users')).toBe(users);

      const userId = await createUser('token-validation');
      const tokens = await countRows('access_tokens');
      const bad = await request(t.baseUrl)
        .post(`/api/v1/admin/users/${userId}/tokens`)
        .set('Authorization', ADMIN)
        .send({ name: 'x', scopes: ['all'] });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: 'scopes is not an allowed field', code: 'VALIDATION_ERROR' });
      expect(await countRows('access_tokens')).toBe(tokens);
    });

    it('answers 404 for an unknown user or token', async () => {
      const tokens = await countRows('access_tokens');
      await request(t.baseUrl)
        .post('/api/v1/admin/users/no-such-user/tokens')
        .set('Authorization', ADMIN)
        .send({})
        .expect(404, { error: 'user not found', code: 'NOT_FOUND' });
      expect(await countRows('access_tokens')).toBe(tokens);
      await request(t.baseUrl)
        .post('/api/v1/admin/tokens/no-such-token/revoke')
        .set('Authorization', ADMIN)
        .expect(404, { error: 'token not found', code: 'NOT_FOUND' });
    });
  });

  describe('CLI', () => {
    it('creates a user and a token that authenticates over HTTP, then revokes it', async () => {
      const user = await cli('users:create', '--name', 'alice');
      expect(user.code).toBe(0);
      expect(user.stdout.endsWith('\n')).toBe(true);
      const printedUser = JSON.parse(user.stdout) as { id: string; name: string };
      expect(printedUser).toEqual({ id: expect.stringMatching(UUID), name: 'alice' });
      expect(Object.keys(printedUser)).toEqual(['id', 'name']);
      const userRows = await t.db.query(`SELECT id, name FROM users WHERE id = $1`, [printedUser.id]);
      expect(userRows.rows).toEqual([{ id: printedUser.id, name: 'alice' }]);

      const token = await cli('tokens:create', '--user', printedUser.id, '--name', 'ci');
      expect(token.code).toBe(0);
      const printedToken = JSON.parse(token.stdout) as { id: string; user_id: string; token: string };
      expect(printedToken).toEqual({ id: expect.stringMatching(UUID), user_id: printedUser.id, token: expect.stringMatching(PAT) });
      expect(Object.keys(printedToken)).toEqual(['id', 'user_id', 'token']);
      expect(await tokenRow(printedToken.id)).toEqual({
        user_id: printedUser.id,
        name: 'ci',
        token_sha256: sha256(printedToken.token),
        last_used_at: null,
        revoked_at: null,
      });

      // The CLI's token is a real credential for the running server, scoped to alice.
      const bearer = `Bearer ${printedToken.token}`;
      const ws = await request(t.baseUrl).post('/api/v1/workspaces').set('Authorization', bearer).send({ name: 'alice ws' });
      expect(ws.status).toBe(201);
      expect((ws.body as { owner_id: string }).owner_id).toBe(printedUser.id);
      expect((await tokenRow(printedToken.id))?.last_used_at).toBeInstanceOf(Date);

      const revoked = await cli('tokens:revoke', printedToken.id);
      expect(revoked.code).toBe(0);
      expect(JSON.parse(revoked.stdout)).toEqual({ id: printedToken.id, revoked_at: expect.stringMatching(ISO) });
      expectUnauthorized(await request(t.baseUrl).get('/api/v1/workspaces').set('Authorization', bearer), 'token is invalid or revoked');
    });

    it('creates a token without a name', async () => {
      const userId = await createUser('cli-unnamed');
      const token = await cli('tokens:create', '--user', userId);
      expect(token.code).toBe(0);
      const printed = JSON.parse(token.stdout) as { id: string; token: string };
      expect((await tokenRow(printed.id))?.name).toBe('');
      await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', `Bearer ${printed.token}`).expect(200);
    });

    it('fails with exit code 1 and a JSON error for an unknown user, writing nothing', async () => {
      const tokens = await countRows('access_tokens');
      const result = await cli('tokens:create', '--user', 'no-such-user');
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(JSON.parse(result.stderr)).toEqual({ error: 'user not found', code: 'NOT_FOUND' });
      expect(await countRows('access_tokens')).toBe(tokens);
    });

    it('fails with exit code 1 for an unknown token, 2 for a missing argument (usage)', async () => {
      const users = await countRows('users');
      const [revoke, create] = await Promise.all([cli('tokens:revoke', 'no-such-token'), cli('users:create')]);
      expect(revoke.code).toBe(1);
      expect(revoke.stdout).toBe('');
      expect(JSON.parse(revoke.stderr)).toEqual({ error: 'token not found', code: 'NOT_FOUND' });
      expect(create.code).toBe(2);
      expect(create.stdout).toBe('');
      expect((JSON.parse(create.stderr) as { error: string }).error).toMatch(/^--name is required/);
      expect(await countRows('users')).toBe(users);
    });
  });
});
