/**
 * One answers budget on every answering surface (RATE_LIMIT_ANSWERS=5): REST respond, the command
 * API (POST /api/v1/commands), GraphQL answerQuestion and MCP answer_question_kandev each refuse the
 * sixth attempt of an identity within the window, in that surface's own 429 shape. Webhook management
 * spends one budget (lists) through REST and GraphQL alike, never the answers budget.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { loadConfig, type RateLimits } from '#config';
import { startApp, type TestApp } from '../../support/app.js';
import { createUser } from '../../support/fixtures.js';
import { gql } from '../../support/graphql.js';
import { connectMcp } from '../../support/mcp.js';

const limits = (overrides: Partial<RateLimits>): RateLimits => ({ ...loadConfig({}).rateLimits, ...overrides });
const MISSING = '00000000-0000-4000-8000-000000000000';
const ANSWERS_REFUSED = /^rate limit exceeded: at most 5 answers per 60 s; retry after \d+ s$/;
const LISTS_REFUSED = /^rate limit exceeded: at most 4 lists per 60 s; retry after \d+ s$/;

const commandBody = (attempt: number) => ({
  schema_version: 1,
  action: 'answer_decision',
  request_id: `budget-${attempt}`,
  dry_run: false,
  target: { worker_id: MISSING },
  params: { decision_ref: 'decision-000000000000000000000000', selection: { option_refs: ['1'] } },
});

describe('the answers budget binds every answering surface', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', rateLimits: limits({ answers: 5, lists: 4 }) } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('REST respond: the sixth attempt is 429 with Retry-After', async () => {
    const { token } = await createUser(t, 'rest-answerer');
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const res = await request(t.baseUrl).post(`/api/v1/clarification/${MISSING}/respond`).set('authorization', `Bearer ${token}`).send({ rejected: true });
      expect(res.status).toBe(404);
    }
    const refused = await request(t.baseUrl).post(`/api/v1/clarification/${MISSING}/respond`).set('authorization', `Bearer ${token}`).send({ rejected: true });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('the command API: the sixth answer_decision is 429 with Retry-After and a clear body', async () => {
    const { token } = await createUser(t, 'connector');
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const res = await request(t.baseUrl).post('/api/v1/commands').set('authorization', `Bearer ${token}`).send(commandBody(attempt));
      expect(res.status).toBe(404);
    }
    const refused = await request(t.baseUrl).post('/api/v1/commands').set('authorization', `Bearer ${token}`).send(commandBody(5));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers.ratelimit).toMatch(/^"answers";r=0;t=\d+$/);
    expect(refused.body).toEqual({ error: expect.stringMatching(ANSWERS_REFUSED), code: 'RATE_LIMITED' });
  });

  it('GraphQL answerQuestion: the sixth is 429 with extensions.code RATE_LIMITED', async () => {
    const { token } = await createUser(t, 'graphql-answerer');
    const answer = () => gql(t, `mutation { rejectQuestion(pendingId: "${MISSING}") { claimed } }`, undefined, token);
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await answer()).status).toBe(200);
    const refused = await answer();
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(refused.body.errors?.[0]?.message).toMatch(ANSWERS_REFUSED);
  });

  it('MCP answer_question_kandev: the sixth is HTTP 429 with a JSON-RPC error', async () => {
    const { token } = await createUser(t, 'mcp-answerer');
    const mcp = await connectMcp(t.baseUrl, { bearer: token });
    try {
      for (let attempt = 0; attempt < 5; attempt += 1) expect((await mcp.call('answer_question_kandev', { pending_id: MISSING, rejected: true })).isError).toBe(true);
      const error = await mcp.call('answer_question_kandev', { pending_id: MISSING, rejected: true }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(429);
      expect((error as Error).message).toMatch(/at most 5 answers per 60 s/);
    } finally {
      await mcp.close();
    }
  });

  it('webhook management spends the lists budget on REST and GraphQL alike, and not the answers budget', async () => {
    const owner = await createUser(t, 'webhook-owner');
    const auth = `Bearer ${owner.token}`;
    const workspace = await request(t.baseUrl).post('/api/v1/workspaces').set('authorization', auth).send({ name: 'hooks' }).expect(201);
    const workspaceId = workspace.body.id as string;
    const created = await request(t.baseUrl)
      .post(`/api/v1/workspaces/${workspaceId}/webhooks`)
      .set('authorization', auth)
      .send({ url: 'https://example.com/hook', events: ['asked'] });
    expect(created.status).toBe(201);
    expect(created.headers.ratelimit).toMatch(/^"lists";r=3;t=\d+$/);
    const webhookId = created.body.id as string;
    const patched = await request(t.baseUrl).patch(`/api/v1/webhooks/${webhookId}`).set('authorization', auth).send({ events: ['asked', 'resolved'] });
    expect(patched.status).toBe(200);
    expect(patched.headers.ratelimit).toMatch(/^"lists";r=2;t=\d+$/);
    const viaGraphql = await gql(t, `mutation { updateWebhook(id: "${webhookId}", enabled: true) { id } }`, undefined, owner.token);
    expect(viaGraphql.status).toBe(200);
    expect(viaGraphql.headers.ratelimit).toMatch(/^"lists";r=1;t=\d+$/);
    await request(t.baseUrl).get(`/api/v1/webhooks/${webhookId}`).set('authorization', auth).expect(200);
    const refusedRest = await request(t.baseUrl).delete(`/api/v1/webhooks/${webhookId}`).set('authorization', auth);
    expect(refusedRest.status).toBe(429);
    expect(refusedRest.body.error).toMatch(LISTS_REFUSED);
    const refusedGraphql = await gql(t, `mutation { deleteWebhook(id: "${webhookId}") }`, undefined, owner.token);
    expect(refusedGraphql.status).toBe(429);
    expect(refusedGraphql.body.errors?.[0]?.message).toMatch(LISTS_REFUSED);

    // The answers budget of the same identity is untouched by all of that.
    const answered = await request(t.baseUrl).post(`/api/v1/clarification/${MISSING}/respond`).set('authorization', auth).send({ rejected: true });
    expect(answered.status).toBe(404);
    expect(answered.headers.ratelimit).toMatch(/^"answers";r=4;t=\d+$/);
  });
});
