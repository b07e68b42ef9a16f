import request from 'supertest';
import { TEST_ADMIN_TOKEN, type TestApp } from './app.js';

export interface SessionFixture {
  workspaceId: string;
  taskId: string;
  sessionId: string;
  agentToken: string;
  turnId: string;
}

/** A workspace, a task in it, a RUNNING session with a started turn — through the public API. */
export async function createRunningSession(
  t: Pick<TestApp, 'baseUrl'>,
  options: { resumeUrl?: string; bearer?: string; taskTitle?: string; workspaceName?: string } = {},
): Promise<SessionFixture> {
  const auth = (req: request.Test) => (options.bearer ? req.set('authorization', `Bearer ${options.bearer}`) : req);
  const workspace = await auth(request(t.baseUrl).post('/api/v1/workspaces')).send({ name: options.workspaceName ?? 'ws' }).expect(201);
  const task = await auth(request(t.baseUrl).post('/api/v1/tasks'))
    .send({ title: options.taskTitle ?? 'task', workspace_id: workspace.body.id })
    .expect(201);
  const session = await auth(request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`))
    .send(options.resumeUrl ? { resume_url: options.resumeUrl } : {})
    .expect(201);
  await auth(request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id}`)).send({ state: 'RUNNING' }).expect(200);
  const turn = await auth(request(t.baseUrl).post(`/api/v1/sessions/${session.body.id}/turns`)).expect(201);
  return {
    workspaceId: workspace.body.id,
    taskId: task.body.id,
    sessionId: session.body.id,
    agentToken: session.body.agent_token,
    turnId: turn.body.id,
  };
}

export const TWO_QUESTIONS = [
  {
    id: 'db',
    title: 'Database',
    prompt: 'Which database?',
    options: [
      { option_id: 'pg', label: 'PostgreSQL', description: 'relational' },
      { option_id: 'sqlite', label: 'SQLite' },
    ],
  },
  { prompt: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'No' }] },
];

/** A bundle asked on a new running session through REST (TWO_QUESTIONS unless told), as `bearer` when given. */
export async function freshBundle(
  t: Pick<TestApp, 'baseUrl'>,
  options: { bearer?: string; questions?: unknown; resumeUrl?: string } = {},
): Promise<{ fixture: SessionFixture; pendingId: string; sessionId: string; agentToken: string }> {
  const fixture = await createRunningSession(t, { ...(options.bearer ? { bearer: options.bearer } : {}), ...(options.resumeUrl ? { resumeUrl: options.resumeUrl } : {}) });
  const asking = request(t.baseUrl).post('/api/v1/clarification/request');
  if (options.bearer) asking.set('authorization', `Bearer ${options.bearer}`);
  const asked = await asking.send({ session_id: fixture.sessionId, questions: options.questions ?? TWO_QUESTIONS }).expect(200);
  return { fixture, pendingId: asked.body.pending_id as string, sessionId: fixture.sessionId, agentToken: fixture.agentToken };
}

/** A user and a personal access token of theirs, made through the admin API. */
export async function createUser(t: Pick<TestApp, 'baseUrl'>, name: string): Promise<{ id: string; token: string }> {
  const admin = `Bearer ${TEST_ADMIN_TOKEN}`;
  const user = await request(t.baseUrl).post('/api/v1/admin/users').set('authorization', admin).send({ name }).expect(201);
  const token = await request(t.baseUrl)
    .post(`/api/v1/admin/users/${(user.body as { id: string }).id}/tokens`)
    .set('authorization', admin)
    .send({ name: `${name} token` })
    .expect(201);
  return { id: (user.body as { id: string }).id, token: (token.body as { token: string }).token };
}

/** Signs a browser in with a personal access token: the `parley_session=<id>` pair to send as `Cookie`. */
export async function signIn(t: TestApp, token: string): Promise<string> {
  const res = await request(t.baseUrl).post('/api/v1/auth/session').send({ token }).expect(200);
  const cookie = ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .map((value) => value.split(';')[0])
    .find((value) => value.startsWith('parley_session='));
  if (!cookie) throw new Error('sign-in set no parley_session cookie');
  return cookie;
}

/** The headers a same-origin browser page sends with a cookie-authenticated write. */
export function browserHeaders(t: TestApp, cookie: string): Record<string, string> {
  return { cookie, origin: t.baseUrl };
}
