import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { createRunningSession, createUser, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql } from '../../support/graphql.js';
import { captureStatements } from '../../support/statements.js';

/**
 * A foreign id must cost exactly what a fabricated one costs, or the difference is
 * an existence oracle. Existence and access are resolved in one query, so both paths send the same
 * statements — compared here statement by statement on the pool, for every route that takes an id.
 */
describe('a foreign id and a fabricated id send the same statements (no timing oracle)', () => {
  let t: TestApp;
  let bob: string;
  let pendingId: string;
  let sessionId: string;
  let taskId: string;
  let capture: ReturnType<typeof captureStatements>;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', ...QUIET_LEASE } });
    const alice = await createUser(t, 'alice');
    bob = (await createUser(t, 'bob')).token;
    const fixture = await createRunningSession(t, { bearer: alice.token });
    sessionId = fixture.sessionId;
    taskId = fixture.taskId;
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${alice.token}`)
      .send({ session_id: sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    pendingId = asked.body.pending_id as string;
    capture = captureStatements(t);
  });
  afterAll(async () => {
    capture.restore();
    await t.close();
  });

  const as = (req: request.Test) => req.set('authorization', `Bearer ${bob}`);
  const cases: Array<[string, (id: () => string) => Promise<number>]> = [
    ['GET /api/v1/clarification/:id', async (id) => (await as(request(t.baseUrl).get(`/api/v1/clarification/${id()}`))).status],
    ['GET /api/v1/clarification/:id/wait', async (id) => (await as(request(t.baseUrl).get(`/api/v1/clarification/${id()}/wait`))).status],
    [
      'POST /api/v1/clarification/:id/respond',
      async (id) => (await as(request(t.baseUrl).post(`/api/v1/clarification/${id()}/respond`)).send({ rejected: true })).status,
    ],
    ['POST /api/v1/clarification/:id/cancel', async (id) => (await as(request(t.baseUrl).post(`/api/v1/clarification/${id()}/cancel`))).status],
    ['GET /api/v1/sessions/:id', async (id) => (await as(request(t.baseUrl).get(`/api/v1/sessions/${id()}`))).status],
    ['GET /api/v1/tasks/:id', async (id) => (await as(request(t.baseUrl).get(`/api/v1/tasks/${id()}`))).status],
    [
      'GraphQL question(pendingId)',
      async (id) => {
        const result = await gql(t, `query ($id: String!) { question(pendingId: $id) { pendingId } }`, { id: id() }, bob);
        return (result.body.errors?.[0]?.extensions as { code?: string } | undefined)?.code === 'NOT_FOUND' ? 404 : 200;
      },
    ],
  ];

  it.each(cases)('%s', async (name, call) => {
    const ids: Record<string, () => string> = {
      'GET /api/v1/sessions/:id': () => sessionId,
      'GET /api/v1/tasks/:id': () => taskId,
    };
    const foreignId = ids[name] ?? (() => pendingId);
    const foreign = await capture.during(() => call(foreignId));
    const fabricated = await capture.during(() => call(() => randomUUID()));
    expect([foreign.result, fabricated.result]).toEqual([404, 404]);
    expect(foreign.pool.length).toBeGreaterThan(0);
    expect(foreign.pool).toEqual(fabricated.pool);
  });
});
