/**
 * Abuse limits: MCP requests are bounded in batch size and in the rows
 * their list calls may return together, refused before any call runs; rate limits per identity
 * (answers, lists, asks) and per client address (sign-in attempts, refused credentials) answer 429
 * with Retry-After and the IETF RateLimit fields, each surface in its own error shape.
 */
import { jest } from '@jest/globals';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { PendingListService, WaiterStore } from '#clarification';
import { loadConfig, type RateLimits } from '#config';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, createUser, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql } from '../../support/graphql.js';
import { connectMcp, sendBatch } from '../../support/mcp.js';
import { connectMcpV2 } from '../../support/mcp-v2.js';

const LIST = 'list_pending_questions_kandev';
const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;

const limits = (overrides: Partial<RateLimits>): RateLimits => ({ ...loadConfig({}).rateLimits, ...overrides });

const listCall = (id: number, args: Record<string, unknown>): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: LIST, arguments: args },
});

describe('MCP request bounds (MCP_MAX_BATCH 20, MCP_MAX_PAGE_BUDGET 1000)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await t.close();
  });

  it('a batch of 100 list calls is refused whole with a JSON-RPC error (400) before any call runs', async () => {
    const list = jest.spyOn(t.app.get(PendingListService), 'list');
    const { error } = await sendBatch(t, Array.from({ length: 100 }, (_, i) => listCall(i + 1, { limit: 200 })));
    expect(error?.code).toBe(400);
    expect(error?.message).toContain(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'a batch of 100 messages exceeds the limit of 20 (MCP_MAX_BATCH)' }, id: null }),
    );
    expect(list).not.toHaveBeenCalled();
  });

  it('list calls asking for more rows together than the page budget are refused; within it they are served', async () => {
    const list = jest.spyOn(t.app.get(PendingListService), 'list');
    const over = await sendBatch(t, [...Array.from({ length: 5 }, (_, i) => listCall(i + 1, { limit: 200 })), listCall(6, {})]);
    expect(over.error?.code).toBe(400);
    expect(over.error?.message).toMatch(/may return 1050 rows, above the page budget of 1000 per request \(MCP_MAX_PAGE_BUDGET\)/);
    expect(list).not.toHaveBeenCalled();
    const within = await sendBatch(t, Array.from({ length: 5 }, (_, i) => listCall(i + 1, { limit: 200 })));
    expect(within.error).toBeUndefined();
    expect(within.responses).toHaveLength(5);
    expect(list).toHaveBeenCalledTimes(5);
  });
});

describe('rate limits per identity (lists 3, answers 2, asks 2 per 60 s)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', rateLimits: limits({ lists: 3, answers: 2, asks: 2 }) } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('REST lists: the fourth list of a user is 429 with Retry-After and RateLimit fields; another user is unaffected', async () => {
    const alice = await createUser(t, 'alice');
    const bob = await createUser(t, 'bob');
    for (const remaining of [2, 1, 0]) {
      const res = await request(t.baseUrl).get('/api/v1/workspaces').set('authorization', `Bearer ${alice.token}`).expect(200);
      expect(res.headers['ratelimit-policy']).toBe('"lists";q=3;w=60');
      expect(res.headers.ratelimit).toMatch(new RegExp(`^"lists";r=${remaining};t=\\d+$`));
    }
    const refused = await request(t.baseUrl).get('/api/v1/tasks').set('authorization', `Bearer ${alice.token}`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers.ratelimit).toMatch(/^"lists";r=0;t=\d+$/);
    expect(refused.body).toEqual({ error: expect.stringMatching(/^rate limit exceeded: at most 3 lists per 60 s; retry after \d+ s$/), code: 'RATE_LIMITED' });
    await request(t.baseUrl).get('/api/v1/workspaces').set('authorization', `Bearer ${bob.token}`).expect(200);
  });

  it('GraphQL: one unit per root field; over budget ⇒ 429 with extensions.code RATE_LIMITED, nothing run', async () => {
    const carol = await createUser(t, 'carol');
    const ok = await gql(t, '{ a: workspaces { id } b: tasks { id } }', undefined, carol.token);
    expect(ok.status).toBe(200);
    expect(ok.headers.ratelimit).toMatch(/^"lists";r=1;t=\d+$/);
    const refused = await gql(t, '{ a: workspaces { id } b: tasks { id } }', undefined, carol.token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body).toEqual({
      data: null,
      errors: [{ message: expect.stringMatching(/^rate limit exceeded/), extensions: { code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) } }],
    });
  });

  it('MCP: one unit per tool call; over budget ⇒ HTTP 429 with a JSON-RPC error, the tool never runs', async () => {
    const dave = await createUser(t, 'dave');
    const mcp = await connectMcp(t.baseUrl, { bearer: dave.token });
    const list = jest.spyOn(t.app.get(PendingListService), 'list');
    try {
      for (let call = 0; call < 3; call += 1) expect((await mcp.call(LIST, {})).isError).toBe(false);
      const error = await mcp.call(LIST, {}).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(429);
      expect((error as Error).message).toMatch(/"code":-32029,"message":"rate limit exceeded: at most 3 lists per 60 s/);
      expect(list).toHaveBeenCalledTimes(3);
    } finally {
      list.mockRestore();
      await mcp.close();
    }
  });

  it('MCP at 2026-07-28 (the v2 SDK client, stateless): the same budget, one unit per tool call; over it the tool never runs', async () => {
    const erin = await createUser(t, 'erin-2026');
    const mcp = await connectMcpV2(t.baseUrl, '2026-07-28', { bearer: erin.token });
    const list = jest.spyOn(t.app.get(PendingListService), 'list');
    try {
      for (let call = 0; call < 3; call += 1) expect((await mcp.call(LIST, {})).isError).toBe(false);
      const error = await mcp.call(LIST, {}).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect((error as { status?: number }).status).toBe(429);
      expect((error as Error).message).toMatch(/rate limit exceeded: at most 3 lists per 60 s/);
      expect(list).toHaveBeenCalledTimes(3);
    } finally {
      list.mockRestore();
      await mcp.close();
    }
  });

  it('answers and asks (REST and the in-session ask): the third within the window is 429', async () => {
    const erin = await createUser(t, 'erin');
    const fixture = await createRunningSession(t, { bearer: erin.token });
    const ask = () =>
      request(t.baseUrl)
        .post('/api/v1/clarification/request')
        .set('authorization', `Bearer ${erin.token}`)
        .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS });
    const pendingId = (await ask().expect(200)).body.pending_id as string;
    await ask().expect(200); // the same questions again: the same bundle, still an ask
    expect((await ask()).status).toBe(429);

    const reject = () =>
      request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${erin.token}`).send({ rejected: true });
    expect((await reject()).body).toMatchObject({ claimed: true });
    expect((await reject()).body).toMatchObject({ claimed: false });
    const refused = await reject();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/^rate limit exceeded: at most 2 answers per 60 s/);

    // The agent asks on the budget of the identity that opened its session (the admin): two asks, then 429 before the third blocks.
    const agent = await createRunningSession(t, { bearer: TEST_ADMIN_TOKEN });
    const session = await connectMcp(t.baseUrl, { path: '/mcp/session', bearer: agent.agentToken });
    try {
      for (let round = 0; round < 2; round += 1) {
        const call = session.call('ask_user_question_kandev', { questions: [{ id: `r${round}`, prompt: 'Go?', options: [{ label: 'y' }, { label: 'n' }] }] });
        const waiting = await eventually(async () => {
          const { rows } = await t.db.query<{ pending_id: string }>(
            `SELECT metadata->>'pending_id' AS pending_id FROM task_session_messages
              WHERE task_session_id = $1 AND metadata->>'question_id' = $2`,
            [agent.sessionId, `r${round}`],
          );
          const id = rows[0]?.pending_id;
          return id && t.app.get(WaiterStore).waiterCount(id) === 1 ? id : undefined;
        });
        await request(t.baseUrl).post(`/api/v1/clarification/${waiting}/respond`).set('authorization', ADMIN).send({ rejected: true }).expect(200);
        expect((await call).isError).toBe(false);
      }
      const error = await session.call('ask_user_question_kandev', { questions: TWO_QUESTIONS }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect((error as StreamableHTTPError).code).toBe(429);
      expect((error as Error).message).toMatch(/at most 2 asks per 60 s/);
    } finally {
      await session.close();
    }
  });
});

describe('rate limits per client address (sign-in 2, failed credentials 2 per 60 s)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', rateLimits: limits({ signIn: 2, failedCredentials: 2 }) } });
    token = (await createUser(t, 'frank')).token;
  });
  afterAll(async () => {
    await t.close();
  });

  it('sign-in: the third attempt from an address is 429, even with a valid token', async () => {
    const signIn = (credential: string) => request(t.baseUrl).post('/api/v1/auth/session').send({ token: credential });
    expect((await signIn('parley_pat_wrong')).status).toBe(401);
    const first = await signIn(token);
    expect(first.status).toBe(200);
    expect(first.headers.ratelimit).toMatch(/^"sign_in";r=0;t=\d+$/);
    const refused = await signIn(token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(refused.body).toEqual({ error: expect.stringMatching(/^rate limit exceeded: at most 2 sign in per 60 s/), code: 'RATE_LIMITED' });
  });

  it('failed credentials: after two refused tokens, every refused credential from the address is 429 in its surface shape; a valid one is served', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await request(t.baseUrl).get('/api/v1/workspaces').set('authorization', `Bearer parley_pat_guess${attempt}`).expect(401);
    }
    const wrong = 'parley_pat_guess2';
    const rest = await request(t.baseUrl).get('/api/v1/workspaces').set('authorization', `Bearer ${wrong}`);
    expect(rest.status).toBe(429);
    expect(rest.body).toEqual({ error: expect.stringMatching(/^rate limit exceeded: at most 2 failed credentials per 60 s/), code: 'RATE_LIMITED' });
    expect(Number(rest.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const cookie = await request(t.baseUrl).get('/api/v1/workspaces').set('cookie', 'parley_session=parley_bs_expired');
    expect(cookie.status).toBe(429);
    const graphql = await gql(t, '{ workspaces { id } }', undefined, wrong);
    expect(graphql.status).toBe(429);
    expect(graphql.body).toEqual({ data: null, errors: [{ message: expect.stringMatching(/^rate limit exceeded/), extensions: { code: 'RATE_LIMITED' } }] });
    const mcp = await request(t.baseUrl)
      .post('/mcp')
      .set('authorization', `Bearer ${wrong}`)
      .set('accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(mcp.status).toBe(429);
    expect(mcp.body).toEqual({ jsonrpc: '2.0', error: { code: -32029, message: expect.stringMatching(/^rate limit exceeded/) }, id: null });
    // The failures refuse only failing credentials: the address's valid token is served on every surface.
    await request(t.baseUrl).get('/api/v1/workspaces').set('authorization', `Bearer ${token}`).expect(200);
    expect((await gql(t, '{ workspaces { id } }', undefined, token)).status).toBe(200);
    // Requests without a credential are not affected: they are simply unauthenticated.
    expect((await request(t.baseUrl).get('/api/v1/workspaces')).status).toBe(401);
  });
});
