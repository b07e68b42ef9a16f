/**
 * Budgets are per real client: behind a proxy TRUST_PROXY names, each client the proxy forwards
 * (X-Forwarded-For) has its own address budgets, and one client's refused credentials never make
 * a valid credential — a token or a browser session, from any client — 429; without TRUST_PROXY
 * the header is ignored, so a client cannot name its way out of its budget. Creating workspaces,
 * tasks and sessions spends a budget per identity, and opening another session does not buy a
 * fresh ask budget: a session's agent asks on the budget of the identity that opened it.
 */
import request from 'supertest';
import { loadConfig, type RateLimits } from '#config';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createUser, signIn, TWO_QUESTIONS } from '../../support/fixtures.js';
import { rawToolCall } from '../../support/mcp.js';

const limits = (overrides: Partial<RateLimits>): RateLimits => ({ ...loadConfig({}).rateLimits, ...overrides });
const WRONG = 'Bearer parley_pat_not-a-real-token';
/** Documentation addresses (RFC 5737): the clients the proxy forwards. */
const CLIENT = { guesser: '203.0.113.7', other: '203.0.113.8', browser: '203.0.113.9', forger: '203.0.113.10', a: '198.51.100.1', b: '198.51.100.2' };

const workspacesFrom = (t: TestApp, client: string | undefined, authorization?: string) => {
  const req = request(t.baseUrl).get('/api/v1/workspaces');
  if (client !== undefined) req.set('x-forwarded-for', client);
  return authorization === undefined ? req : req.set('authorization', authorization);
};

describe('behind a trusted proxy (TRUST_PROXY=loopback), every forwarded client has budgets of its own', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', trustProxy: ['loopback'], rateLimits: limits({ signIn: 2, verifications: 2 }) } });
    token = (await createUser(t, 'valid')).token;
  });
  afterAll(async () => {
    await t.close();
  });

  it("31 bad bearers spend one client's failed-credential budget only: valid tokens and browser sessions are served, from any client", async () => {
    const cookie = await signIn(t, token);
    for (let attempt = 0; attempt < 30; attempt += 1) await workspacesFrom(t, CLIENT.guesser, WRONG).expect(401);
    const refused = await workspacesFrom(t, CLIENT.guesser, WRONG);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.stringMatching(/^rate limit exceeded: at most 30 failed credentials per 60 s; retry after \d+ s$/), code: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['www-authenticate']).toBeUndefined();

    // Another client behind the same proxy: its failure is its own first, its valid token served.
    await workspacesFrom(t, CLIENT.other, WRONG).expect(401);
    await workspacesFrom(t, CLIENT.other, `Bearer ${token}`).expect(200);
    // The proxy's own address (no header) is one more client.
    await workspacesFrom(t, undefined, `Bearer ${token}`).expect(200);
    // A valid credential is never refused for failures, not even from the client that failed.
    await workspacesFrom(t, CLIENT.guesser, `Bearer ${token}`).expect(200);
    await workspacesFrom(t, CLIENT.guesser, `Bearer ${TEST_ADMIN_TOKEN}`).expect(200);
    await workspacesFrom(t, CLIENT.guesser).set('cookie', cookie).expect(200);
    await workspacesFrom(t, CLIENT.browser).set('cookie', cookie).expect(200);
    // …while its bad credentials stay refused.
    expect((await workspacesFrom(t, CLIENT.guesser, WRONG)).status).toBe(429);
  });

  it('a client that forges X-Forwarded-For entries is still the address the proxy saw', async () => {
    for (let attempt = 0; attempt < 30; attempt += 1) await workspacesFrom(t, `10.9.8.${attempt}, ${CLIENT.forger}`, WRONG).expect(401);
    expect((await workspacesFrom(t, `10.9.8.99, ${CLIENT.forger}`, WRONG)).status).toBe(429);
  });

  it('sign-in and receipt verification are counted per forwarded client', async () => {
    const signInFrom = (client: string) => request(t.baseUrl).post('/api/v1/auth/session').set('x-forwarded-for', client).send({ token: 'parley_pat_wrong' });
    expect([(await signInFrom(CLIENT.a)).status, (await signInFrom(CLIENT.a)).status, (await signInFrom(CLIENT.a)).status]).toEqual([401, 401, 429]);
    expect((await signInFrom(CLIENT.b)).status).toBe(401);

    const verifyFrom = (client: string) => request(t.baseUrl).post('/api/v1/receipts/verify').set('x-forwarded-for', client).send({ receipt: 'not.a.receipt' });
    expect([(await verifyFrom(CLIENT.a)).status, (await verifyFrom(CLIENT.a)).status, (await verifyFrom(CLIENT.a)).status]).toEqual([200, 200, 429]);
    expect((await verifyFrom(CLIENT.b)).body).toEqual({ valid: false, reason: 'malformed' });
  });
});

describe('without TRUST_PROXY, X-Forwarded-For is ignored: the TCP peer is the client', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', rateLimits: limits({ failedCredentials: 2 }) } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('naming another client does not escape the budget, and a valid credential is still served', async () => {
    await workspacesFrom(t, CLIENT.a, WRONG).expect(401);
    await workspacesFrom(t, CLIENT.b, WRONG).expect(401);
    expect((await workspacesFrom(t, CLIENT.other, WRONG)).status).toBe(429);
    await workspacesFrom(t, CLIENT.other, `Bearer ${TEST_ADMIN_TOKEN}`).expect(200);
  });
});

describe('TRUST_PROXY as a hop count trusts that many proxies nearest the server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', trustProxy: 1, rateLimits: limits({ failedCredentials: 2 }) } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('the entry the one trusted proxy appended is the client, whatever the client put before it', async () => {
    await workspacesFrom(t, `10.0.0.1, ${CLIENT.a}`, WRONG).expect(401);
    await workspacesFrom(t, `10.0.0.2, ${CLIENT.a}`, WRONG).expect(401);
    expect((await workspacesFrom(t, `10.0.0.3, ${CLIENT.a}`, WRONG)).status).toBe(429);
    await workspacesFrom(t, `${CLIENT.a}, ${CLIENT.b}`, WRONG).expect(401);
  });
});

describe('creations and asks per identity (creations 3, asks 2 per 60 s)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', rateLimits: limits({ creations: 3, asks: 2 }) } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('the fourth workspace, task or session one identity creates is 429, nothing created; another identity is unaffected', async () => {
    const carol = await createUser(t, 'carol');
    const dave = await createUser(t, 'dave');
    const as = (req: request.Test, who: { token: string }) => req.set('authorization', `Bearer ${who.token}`);
    const workspace = await as(request(t.baseUrl).post('/api/v1/workspaces'), carol).send({ name: 'w' }).expect(201);
    expect(workspace.headers.ratelimit).toMatch(/^"creations";r=2;t=\d+$/);
    const task = await as(request(t.baseUrl).post('/api/v1/tasks'), carol).send({ title: 't', workspace_id: workspace.body.id }).expect(201);
    await as(request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`), carol).send({}).expect(201);

    const refusals = [
      await as(request(t.baseUrl).post('/api/v1/workspaces'), carol).send({ name: 'w2' }),
      await as(request(t.baseUrl).post('/api/v1/tasks'), carol).send({ title: 't2', workspace_id: workspace.body.id }),
      await as(request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`), carol).send({}),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: expect.stringMatching(/^rate limit exceeded: at most 3 creations per 60 s; retry after \d+ s$/), code: 'RATE_LIMITED' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const { rows } = await t.db.query<{ workspaces: string; tasks: string; sessions: string }>(
      `SELECT (SELECT count(*) FROM workspaces WHERE owner_id = $1) AS workspaces,
              (SELECT count(*) FROM tasks WHERE workspace_id = $2) AS tasks,
              (SELECT count(*) FROM task_sessions WHERE task_id = $3) AS sessions`,
      [carol.id, workspace.body.id, task.body.id],
    );
    expect(rows[0]).toEqual({ workspaces: '1', tasks: '1', sessions: '1' });

    await as(request(t.baseUrl).post('/api/v1/workspaces'), dave).send({ name: 'd' }).expect(201);
  });

  it("opening more sessions buys no fresh ask budget: every session's agent asks on its opener's", async () => {
    const [erin, frank, grace] = [await createUser(t, 'erin'), await createUser(t, 'frank'), await createUser(t, 'grace')];
    // Grace files the tasks (no workspace: everyone sees them); Erin opens two sessions, Frank one.
    const openSession = async (opener: { token: string }) => {
      const task = await request(t.baseUrl).post('/api/v1/tasks').set('authorization', `Bearer ${grace.token}`).send({ title: 'ask budget' }).expect(201);
      const session = await request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`).set('authorization', `Bearer ${opener.token}`).send({}).expect(201);
      return session.body as { id: string; agent_token: string };
    };
    const [first, second, franks] = [await openSession(erin), await openSession(erin), await openSession(frank)];
    // An ask the tool refuses (no question) still spends its unit at admission: nothing blocks.
    const ask = (agentToken: string) => rawToolCall(t.baseUrl, '/mcp/session', agentToken, 'ask_user_question_kandev', { questions: [] });

    for (const agent of [first, first]) expect((await ask(agent.agent_token)).status).toBe(200);
    const refused = await ask(second.agent_token);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({ code: -32029, message: expect.stringMatching(/^rate limit exceeded: at most 2 asks per 60 s/) });
    // REST asks share it too, Erin's own and her agents'; Frank's agent has his.
    const restAsk = (bearer: string, sessionId: string) =>
      request(t.baseUrl).post('/api/v1/clarification/request').set('authorization', `Bearer ${bearer}`).send({ session_id: sessionId, questions: TWO_QUESTIONS });
    expect((await restAsk(erin.token, first.id)).status).toBe(429);
    expect((await restAsk(second.agent_token, second.id)).status).toBe(429);
    expect((await ask(franks.agent_token)).status).toBe(200);
  });
});
