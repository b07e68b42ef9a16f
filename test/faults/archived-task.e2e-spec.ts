/**
 * Asking on an archived task, or on a terminal session, is refused (409, the same
 * message on REST and on the in-session ask — whose agent token an ended session no longer
 * authenticates), checked under the session's lock in the ask's own transaction — so however asks
 * and the archive interleave, no active bundle is ever left on an archived task.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../support/app.js';
import { QUIET_LEASE } from '../support/claim.js';
import { createRunningSession, type SessionFixture, TWO_QUESTIONS } from '../support/fixtures.js';
import { gqlData } from '../support/graphql.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';

const ASK = 'ask_user_question_kandev';

describe('no question on an archived task or an ended session', () => {
  let t: TestApp;
  const agents: McpConnection[] = [];

  beforeAll(async () => {
    t = await startApp({ config: { ...QUIET_LEASE } });
  });
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
    await t.close();
  });

  const api = () => request(t.baseUrl);

  async function agentOf(fixture: { agentToken: string }): Promise<McpConnection> {
    const agent = await connectMcp(t.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' });
    agents.push(agent);
    return agent;
  }

  /** What each surface says to a new question: REST's status and error, the in-session ask's tool error. */
  async function refusals(fixture: SessionFixture): Promise<{ rest: unknown; mcp: unknown }> {
    const rest = await api().post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS });
    const agent = await agentOf(fixture);
    const { code, message } = await agent.callError(ASK, { questions: TWO_QUESTIONS });
    return { rest: { status: rest.status, body: rest.body }, mcp: { code, message } };
  }

  async function activeBundlesOfTask(taskId: string): Promise<string[]> {
    const { rows } = await t.db.query<{ pending_id: string }>(
      `SELECT b.pending_id FROM clarification_bundles b JOIN task_sessions s ON s.id = b.session_id WHERE s.task_id = $1 AND b.active`,
      [taskId],
    );
    return rows.map((row) => row.pending_id);
  }

  it('after POST /tasks/:id/archive, REST request and the in-session ask are both refused with 409 "task is archived", and nothing is written', async () => {
    const fixture = await createRunningSession(t);
    await api().post(`/api/v1/tasks/${fixture.taskId}/archive`).expect(200);
    const { rows: before } = await t.db.query(`SELECT count(*)::int AS n FROM task_session_messages`);

    expect(await refusals(fixture)).toEqual({
      rest: { status: 409, body: { error: 'task is archived', code: 'CONFLICT' } },
      mcp: { code: 'CONFLICT', message: 'task is archived' },
    });
    const { rows: after } = await t.db.query(`SELECT count(*)::int AS n FROM task_session_messages`);
    expect(after).toEqual(before);
    expect(await activeBundlesOfTask(fixture.taskId)).toEqual([]);
  });

  it('on a terminal session REST refuses with 409 "session has ended (COMPLETED)"; the in-session surface takes its agent token no more (401)', async () => {
    const fixture = await createRunningSession(t);
    await api().patch(`/api/v1/sessions/${fixture.sessionId}`).send({ state: 'COMPLETED' }).expect(200);
    const rest = await api().post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS });
    expect({ status: rest.status, body: rest.body as unknown }).toEqual({ status: 409, body: { error: 'session has ended (COMPLETED)', code: 'CONFLICT' } });
    await expect(connectMcp(t.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' })).rejects.toMatchObject({ code: 401 });
  });

  it('archive racing many asks (REST and in-session, on existing and newly created sessions) never leaves an active bundle on the archived task', async () => {
    const fixture = await createRunningSession(t);
    const sessions = [fixture.sessionId];
    const tokens = [fixture.agentToken];
    for (let index = 0; index < 3; index += 1) {
      const session = await api().post(`/api/v1/tasks/${fixture.taskId}/sessions`).send({}).expect(201);
      await api().patch(`/api/v1/sessions/${session.body.id}`).send({ state: 'RUNNING' }).expect(200);
      sessions.push(session.body.id as string);
      tokens.push(session.body.agent_token as string);
    }
    const agents = await Promise.all(tokens.map((agentToken) => agentOf({ agentToken })));
    const questions = (index: number) => [{ prompt: `question ${index}?`, options: [{ label: 'Yes' }, { label: 'No' }] }];

    const restAsks = Array.from({ length: 24 }, (_, index) =>
      api()
        .post('/api/v1/clarification/request')
        .send({ session_id: sessions[index % sessions.length], questions: questions(index) })
        .then((res) => ({ status: res.status, error: res.body.error as string | undefined })),
    );
    // The in-session asks block when they create a bundle; the archive ends them (expired).
    const agentAsks = agents.map((agent, index) => agent.call(ASK, { questions: questions(100 + index) }));
    // Sessions created while the archive runs: created before it ⇒ askable until it commits; after ⇒ refused.
    const lateSessions = Array.from({ length: 6 }, async (_, index) => {
      const session = await api().post(`/api/v1/tasks/${fixture.taskId}/sessions`).send({});
      if (session.status !== 201) return { status: session.status, error: session.body.error as string | undefined };
      const res = await api().post('/api/v1/clarification/request').send({ session_id: session.body.id, questions: questions(200 + index) });
      return { status: res.status, error: res.body.error as string | undefined };
    });
    const archived = api().post(`/api/v1/tasks/${fixture.taskId}/archive`).then((res) => res.status);

    expect(await archived).toBe(200);
    const outcomes = [...(await Promise.all(restAsks)), ...(await Promise.all(lateSessions))];
    // Every ask either happened before the archive (its bundle then expired with it) or was refused.
    expect(outcomes.filter((outcome) => outcome.status !== 200 && outcome.error !== 'task is archived')).toEqual([]);
    for (const outcome of await Promise.all(agentAsks)) {
      expect(outcome.isError).toBe(true);
      expect((JSON.parse(outcome.text) as { message: string }).message).toMatch(/task is archived|expired/);
    }

    expect(await activeBundlesOfTask(fixture.taskId)).toEqual([]);
    const { rows: pendingOnCurrentTurn } = await t.db.query(
      `SELECT m.metadata->>'pending_id' AS pending_id FROM task_session_messages m JOIN task_sessions s ON s.id = m.task_session_id
        WHERE s.task_id = $1 AND m.type = 'clarification_request' AND m.metadata->>'status' = 'pending'`,
      [fixture.taskId],
    );
    expect(pendingOnCurrentTurn).toEqual([]);
    // Answerers are not offered any of them: the task's workspace lists nothing pending.
    const listed = await gqlData<{ pendingQuestions: { count: number } }>(t, `query($ws: String) { pendingQuestions(workspaceId: $ws, first: 200) { count } }`, {
      ws: fixture.workspaceId,
    });
    expect(listed.pendingQuestions.count).toBe(0);
    const task = await api().get(`/api/v1/tasks/${fixture.taskId}`).expect(200);
    expect(task.body).toMatchObject({ state: 'ARCHIVED', task_pending_action: null, primary_session_pending_action: null });
    const tasks = await api().get('/api/v1/tasks').expect(200);
    expect((tasks.body.tasks as Array<{ id: string; task_pending_action: unknown }>).find((row) => row.id === fixture.taskId)).toMatchObject({
      task_pending_action: null,
    });
  });
});
