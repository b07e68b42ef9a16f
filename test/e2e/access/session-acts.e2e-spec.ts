/**
 * Asking is the session's own act: only its agent (its agent token), the identity that opened it and
 * admins ask in it, cancel its bundles, change its state or open and complete its turns. A member who
 * sees the session but holds none of those is refused with a 403 and changes nothing; one who does not
 * see it gets the session's 404. The forged-approval path — a non-eligible viewer asking his own bundle
 * with the agent's action, answering it and holding a receipt — is closed at the ask.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { ADMIN, ONE_QUESTION, PICK, respondAs, team, type Team } from '../../support/routing.js';

const ACTION = { name: 'deploy', arguments: { env: 'prod' } };

describe('acting in a session (ask, cancel, state, turns)', () => {
  let t: TestApp;
  let crew: Team;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    crew = await team(t, 2, 'acts');
  });
  afterAll(() => t.close());

  const as = (token: string) => `Bearer ${token}`;
  const ask = (authorization: string, extra: Record<string, unknown> = {}) =>
    request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', authorization)
      .send({ session_id: crew.fixture.sessionId, questions: ONE_QUESTION, ...extra });

  async function countBundles(): Promise<number> {
    const { rows } = await t.db.query<{ n: string }>(
      `SELECT count(DISTINCT metadata->>'pending_id') AS n FROM task_session_messages WHERE task_session_id = $1 AND type = 'clarification_request'`,
      [crew.fixture.sessionId],
    );
    return Number(rows[0].n);
  }

  it('a member who sees the session but did not open it may not ask in it (403), and nothing is asked', async () => {
    const before = await countBundles();
    const refused = await ask(as(crew.members[0].token), { action: ACTION }).expect(403);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN' });
    expect(refused.body.error).toMatch(/session's agent/);
    expect(await countBundles()).toBe(before);
  });

  it('a stranger who does not see the session gets its 404, the same as a session that does not exist', async () => {
    const foreign = await ask(as(crew.stranger.token)).expect(404);
    const missing = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', as(crew.stranger.token))
      .send({ session_id: 'no-such-session', questions: ONE_QUESTION })
      .expect(404);
    expect(foreign.body).toEqual(missing.body);
  });

  it("the opener, the session's agent token and an admin may ask", async () => {
    await ask(as(crew.owner.token), { context: 'opener' }).expect(200);
    await ask(as(crew.fixture.agentToken), { context: 'agent' }).expect(200);
    await ask(ADMIN, { context: 'admin' }).expect(200);
    // Another session's agent does not see this one.
    const other = await request(t.baseUrl).post(`/api/v1/tasks/${crew.fixture.taskId}/sessions`).set('authorization', as(crew.owner.token)).send({}).expect(201);
    await ask(as(other.body.agent_token as string)).expect(404);
  });

  it('a member may not cancel the session\'s bundle, change its state or open or complete a turn (403); the bundle stays pending', async () => {
    const asked = await ask(as(crew.owner.token), { questions: [{ ...ONE_QUESTION[0], id: 'cancel-probe' }] }).expect(200);
    const pendingId = asked.body.pending_id as string;
    const member = as(crew.members[1].token);
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/cancel`).set('authorization', member).expect(403);
    await request(t.baseUrl).patch(`/api/v1/sessions/${crew.fixture.sessionId}`).set('authorization', member).send({ state: 'COMPLETED' }).expect(403);
    await request(t.baseUrl).post(`/api/v1/sessions/${crew.fixture.sessionId}/turns`).set('authorization', member).expect(403);
    await request(t.baseUrl).post(`/api/v1/sessions/${crew.fixture.sessionId}/turns/${crew.fixture.turnId}/complete`).set('authorization', member).expect(403);
    const bundle = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', member).expect(200);
    expect(bundle.body.status).toBe('pending');
    const session = await request(t.baseUrl).get(`/api/v1/sessions/${crew.fixture.sessionId}`).set('authorization', member).expect(200);
    expect(session.body.state).toBe('WAITING_FOR_INPUT');
    // The session's agent may cancel its own bundle.
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/cancel`).set('authorization', as(crew.fixture.agentToken)).expect(200);
  });

  it("a member may not archive the owner's task (it would end the agent's session and bundles); the owner may", async () => {
    const asked = await ask(as(crew.fixture.agentToken), { questions: [{ ...ONE_QUESTION[0], id: 'archive-probe' }] }).expect(200);
    const refused = await request(t.baseUrl).post(`/api/v1/tasks/${crew.fixture.taskId}/archive`).set('authorization', as(crew.members[0].token)).expect(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    const bundle = await request(t.baseUrl).get(`/api/v1/clarification/${asked.body.pending_id}`).set('authorization', as(crew.owner.token)).expect(200);
    expect(bundle.body.status).toBe('pending');
    // A task of the member's own (no session he did not open) is his to archive.
    const own = await request(t.baseUrl).post('/api/v1/tasks').set('authorization', as(crew.members[0].token)).send({ title: 'mine', workspace_id: crew.fixture.workspaceId }).expect(201);
    await request(t.baseUrl).post(`/api/v1/tasks/${own.body.id}/sessions`).set('authorization', as(crew.members[0].token)).send({}).expect(201);
    await request(t.baseUrl).post(`/api/v1/tasks/${own.body.id}/archive`).set('authorization', as(crew.members[0].token)).expect(200);
    // …but not once someone else opened a session on it; the workspace's owner may archive either.
    const shared = await request(t.baseUrl).post('/api/v1/tasks').set('authorization', as(crew.members[0].token)).send({ title: 'shared', workspace_id: crew.fixture.workspaceId }).expect(201);
    await request(t.baseUrl).post(`/api/v1/tasks/${shared.body.id}/sessions`).set('authorization', as(crew.members[1].token)).send({}).expect(201);
    await request(t.baseUrl).post(`/api/v1/tasks/${shared.body.id}/archive`).set('authorization', as(crew.members[0].token)).expect(403);
    await request(t.baseUrl).post(`/api/v1/tasks/${shared.body.id}/archive`).set('authorization', as(crew.owner.token)).expect(200);
  });

  it("a routed question's non-eligible viewer cannot forge an approval: he can neither ask nor answer, and the agent's question stays", async () => {
    const routed = await ask(as(crew.fixture.agentToken), {
      questions: [{ ...ONE_QUESTION[0], id: 'go' }],
      action: ACTION,
      routing: { answerers: { user_ids: [crew.members[0].id] } },
    }).expect(200);
    const viewer = crew.members[1];
    await ask(as(viewer.token), { questions: [{ ...ONE_QUESTION[0], id: 'go' }], action: ACTION }).expect(403);
    await respondAs(t, viewer.token, routed.body.pending_id as string, { answers: PICK('postgres').map((a) => ({ ...a, question_id: 'go' })) }).expect(403);
    const bundle = await request(t.baseUrl).get(`/api/v1/clarification/${routed.body.pending_id}`).set('authorization', as(viewer.token)).expect(200);
    expect(bundle.body.status).toBe('pending');
  });
});
