/**
 * Task visibility (docs/security.md, "Identity and access"):
 * - Caller scope: no identity, or the synthetic identity of auth-disabled mode ⇒ unscoped (sees all).
 * - Task access for a scoped user: task missing ⇒ not found; task `workspace_id` empty ⇒ allow;
 *   workspace row missing (dangling reference) ⇒ allow; workspace `owner_id` empty or equal to the
 *   user ⇒ allow; otherwise not found (never 403).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { AccessService, ADMIN_CALLER, SYNTHETIC_CALLER, userCaller } from '#authorization';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;

async function insertWorkspace(t: TestApp, id: string, ownerId: string): Promise<void> {
  await t.db.query(`INSERT INTO workspaces (id, name, owner_id) VALUES ($1, $2, $3)`, [id, `workspace ${id}`, ownerId]);
}

async function insertTask(t: TestApp, id: string, workspaceId: string): Promise<void> {
  await t.db.query(`INSERT INTO tasks (id, workspace_id, title, state) VALUES ($1, $2, $3, 'OPEN')`, [id, workspaceId, `task ${id}`]);
}

async function insertSession(t: TestApp, id: string, taskId: string): Promise<void> {
  await t.db.query(`INSERT INTO task_sessions (id, task_id, state, agent_token_sha256) VALUES ($1, $2, 'CREATED', $3)`, [
    id,
    taskId,
    randomBytes(32).toString('hex'),
  ]);
}

describe('AccessService (baseline "Authorization")', () => {
  let t: TestApp;
  let access: AccessService;
  const alice = userCaller('user-alice');
  const bob = userCaller('user-bob');
  const carol = userCaller('user-carol');

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    access = t.app.get(AccessService);
    // Inserted out of id order, so "sorted by id" is observable.
    await insertWorkspace(t, 'ws-2-unowned', '');
    await insertWorkspace(t, 'ws-3-bob', 'user-bob');
    await insertWorkspace(t, 'ws-1-alice', 'user-alice');
    await insertTask(t, 'task-empty', '');
    await insertTask(t, 'task-dangling', 'ws-0-deleted');
    await insertTask(t, 'task-unowned', 'ws-2-unowned');
    await insertTask(t, 'task-alice', 'ws-1-alice');
    await insertTask(t, 'task-bob', 'ws-3-bob');
    await insertSession(t, 'session-alice', 'task-alice');
    await insertSession(t, 'session-bob', 'task-bob');
  });
  afterAll(async () => {
    await t.close();
  });

  describe('authorizeTaskAccess: unscoped callers (synthetic, admin) may act on every task id', () => {
    const ids = ['task-empty', 'task-dangling', 'task-unowned', 'task-alice', 'task-bob', 'no-such-task', randomUUID(), ''];
    it.each([
      ['synthetic', SYNTHETIC_CALLER],
      ['admin', ADMIN_CALLER],
    ] as const)('%s caller ⇒ allowed for existing, fabricated and empty ids', async (_name, caller) => {
      for (const id of ids) {
        await expect(access.authorizeTaskAccess(caller, id)).resolves.toBe(true);
      }
    });
  });

  describe('authorizeTaskAccess: a scoped user', () => {
    it.each([
      ['task missing ⇒ not found', 'no-such-task', false],
      ['fabricated uuid ⇒ not found', randomUUID(), false],
      ['empty task id ⇒ not found', '', false],
      ['task workspace_id empty ⇒ allow', 'task-empty', true],
      ['workspace row missing (dangling) ⇒ allow', 'task-dangling', true],
      ['workspace owner_id empty (unowned) ⇒ allow', 'task-unowned', true],
      ["workspace owner_id equal to the user (own) ⇒ allow", 'task-alice', true],
      ["workspace owned by another user (foreign) ⇒ not found", 'task-bob', false],
    ] as const)('%s', async (_rule, taskId, allowed) => {
      await expect(access.authorizeTaskAccess(alice, taskId)).resolves.toBe(allowed);
    });

    it('applies the same rule from the other owner’s side', async () => {
      await expect(access.authorizeTaskAccess(bob, 'task-bob')).resolves.toBe(true);
      await expect(access.authorizeTaskAccess(bob, 'task-alice')).resolves.toBe(false);
      await expect(access.authorizeTaskAccess(bob, 'task-unowned')).resolves.toBe(true);
      await expect(access.authorizeTaskAccess(bob, 'task-dangling')).resolves.toBe(true);
      await expect(access.authorizeTaskAccess(bob, 'task-empty')).resolves.toBe(true);
    });

    it('sees neither owned workspace as a user who owns nothing', async () => {
      await expect(access.authorizeTaskAccess(carol, 'task-alice')).resolves.toBe(false);
      await expect(access.authorizeTaskAccess(carol, 'task-bob')).resolves.toBe(false);
      await expect(access.authorizeTaskAccess(carol, 'task-unowned')).resolves.toBe(true);
    });

    it('treats a user id that only matches an id prefix or case as another user', async () => {
      await expect(access.authorizeTaskAccess(userCaller('user-ali'), 'task-alice')).resolves.toBe(false);
      await expect(access.authorizeTaskAccess(userCaller('USER-ALICE'), 'task-alice')).resolves.toBe(false);
    });
  });

  describe('authorizeSessionAccess goes through the session’s task', () => {
    it.each([
      ['own session (task in own workspace) ⇒ allow', 'session-alice', true],
      ['foreign session (task in another user’s workspace) ⇒ not found', 'session-bob', false],
      ['missing session ⇒ not found', 'no-such-session', false],
      ['empty session id ⇒ not found', '', false],
    ] as const)('scoped user: %s', async (_rule, sessionId, allowed) => {
      await expect(access.authorizeSessionAccess(alice, sessionId)).resolves.toBe(allowed);
    });

    it('unscoped callers: every existing session, no missing one', async () => {
      for (const caller of [SYNTHETIC_CALLER, ADMIN_CALLER]) {
        await expect(access.authorizeSessionAccess(caller, 'session-alice')).resolves.toBe(true);
        await expect(access.authorizeSessionAccess(caller, 'session-bob')).resolves.toBe(true);
        await expect(access.authorizeSessionAccess(caller, 'no-such-session')).resolves.toBe(false);
      }
    });
  });

  describe('authorizeWorkspaceAccess: an existing workspace that is unowned or the caller’s', () => {
    it.each([
      ['ws-2-unowned', alice, true],
      ['ws-1-alice', alice, true],
      ['ws-3-bob', alice, false],
      ['ws-0-deleted', alice, false],
      ['ws-3-bob', ADMIN_CALLER, true],
      ['ws-3-bob', SYNTHETIC_CALLER, true],
      ['ws-0-deleted', ADMIN_CALLER, false],
    ] as const)('%s for %j ⇒ %s', async (workspaceId, caller, allowed) => {
      await expect(access.authorizeWorkspaceAccess(caller, workspaceId)).resolves.toBe(allowed);
    });
  });

  describe('visibleWorkspaceIds', () => {
    it('unscoped callers see all workspaces', async () => {
      await expect(access.visibleWorkspaceIds(SYNTHETIC_CALLER)).resolves.toEqual({ all: true });
      await expect(access.visibleWorkspaceIds(ADMIN_CALLER)).resolves.toEqual({ all: true });
    });

    it('a user sees exactly the unowned workspaces and their own, sorted by id (not foreign ones)', async () => {
      await expect(access.visibleWorkspaceIds(alice)).resolves.toEqual({ all: false, ids: ['ws-1-alice', 'ws-2-unowned'] });
      await expect(access.visibleWorkspaceIds(bob)).resolves.toEqual({ all: false, ids: ['ws-2-unowned', 'ws-3-bob'] });
      await expect(access.visibleWorkspaceIds(carol)).resolves.toEqual({ all: false, ids: ['ws-2-unowned'] });
    });
  });
});

describe('a user who sees no workspace at all (fresh database, only foreign workspaces)', () => {
  let t: TestApp;
  let carolId: string;
  let carol: string;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    const user = await request(t.baseUrl).post('/api/v1/admin/users').set('Authorization', ADMIN).send({ name: 'carol' });
    expect(user.status).toBe(201);
    carolId = (user.body as { id: string }).id;
    const token = await request(t.baseUrl).post(`/api/v1/admin/users/${carolId}/tokens`).set('Authorization', ADMIN).send({});
    expect(token.status).toBe(201);
    carol = `Bearer ${(token.body as { token: string }).token}`;
    await insertWorkspace(t, 'ws-foreign', 'someone-else');
    await insertTask(t, 'task-foreign', 'ws-foreign');
    await insertTask(t, 'task-empty', '');
    await insertTask(t, 'task-dangling', 'ws-deleted');
  });
  afterAll(async () => {
    await t.close();
  });

  it('visibleWorkspaceIds ⇒ { all: false, ids: [] }', async () => {
    await expect(t.app.get(AccessService).visibleWorkspaceIds(userCaller(carolId))).resolves.toEqual({ all: false, ids: [] });
  });

  it('lists no workspace, and only the empty-workspace and dangling tasks', async () => {
    await request(t.baseUrl).get('/api/v1/workspaces').set('Authorization', carol).expect(200, { workspaces: [], next_cursor: '' });
    const tasks = await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', carol);
    expect(tasks.status).toBe(200);
    expect((tasks.body as { tasks: { id: string }[] }).tasks.map((task) => task.id)).toEqual(['task-empty', 'task-dangling']);
    await request(t.baseUrl).get('/api/v1/tasks?workspace_id=ws-foreign').set('Authorization', carol).expect(200, { tasks: [], next_cursor: '' });
    await request(t.baseUrl).get('/api/v1/tasks/task-foreign').set('Authorization', carol).expect(404, { error: 'task not found', code: 'NOT_FOUND' });
    await request(t.baseUrl).get('/api/v1/tasks/task-dangling').set('Authorization', carol).expect(200);
  });
});

interface TaskView {
  id: string;
  workspace_id: string;
  title: string;
  state: string;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

interface SessionView {
  id: string;
  task_id: string;
  state: string;
}

type Branch = 'empty' | 'dangling' | 'unowned' | 'own' | 'foreign';
const BRANCHES: readonly Branch[] = ['empty', 'dangling', 'unowned', 'own', 'foreign'];

describe.each(['disabled', 'enabled'] as const)('HTTP access with AUTH_MODE=%s (baseline "Authorization")', (mode) => {
  const scoped = mode === 'enabled';
  let t: TestApp;
  let aliceId: string;
  let bobId: string;
  let alice: string;
  let bob: string;
  const workspaces = { unowned: '', own: '', foreign: '' };
  const danglingWorkspace = `ws-deleted-${randomUUID()}`;
  const tasks = {} as Record<Branch, TaskView>;
  const sessions = { own: '', foreign: '' };

  /** Whether alice may see the task of this branch: everything when auth is disabled. */
  const aliceSees = (branch: Branch): boolean => !scoped || branch !== 'foreign';

  async function adminPost(url: string, body: object): Promise<request.Response> {
    const res = await request(t.baseUrl).post(url).set('Authorization', ADMIN).send(body);
    expect(res.status).toBe(201);
    return res;
  }

  async function makeUser(name: string): Promise<[string, string]> {
    const user = await adminPost('/api/v1/admin/users', { name });
    const id = (user.body as { id: string }).id;
    const token = await adminPost(`/api/v1/admin/users/${id}/tokens`, {});
    return [id, `Bearer ${(token.body as { token: string }).token}`];
  }

  function taskIds(res: request.Response): string[] {
    expect(res.status).toBe(200);
    return (res.body as { tasks: TaskView[] }).tasks.map((task) => task.id);
  }

  async function countRows(table: 'tasks' | 'task_sessions' | 'workspaces'): Promise<number> {
    const result = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    return result.rows[0]?.n ?? -1;
  }

  beforeAll(async () => {
    t = await startApp({ config: { authMode: mode } });
    [aliceId, alice] = await makeUser('alice');
    [bobId, bob] = await makeUser('bob');

    workspaces.unowned = ((await adminPost('/api/v1/workspaces', { name: 'unowned' })).body as { id: string }).id;
    workspaces.own = ((await adminPost('/api/v1/workspaces', { name: 'alice', owner_id: aliceId })).body as { id: string }).id;
    workspaces.foreign = ((await adminPost('/api/v1/workspaces', { name: 'bob', owner_id: bobId })).body as { id: string }).id;

    tasks.empty = (await adminPost('/api/v1/tasks', { title: 'no workspace' })).body as TaskView;
    const danglingId = randomUUID();
    await insertTask(t, danglingId, danglingWorkspace);
    const dangling = await request(t.baseUrl).get(`/api/v1/tasks/${danglingId}`).set('Authorization', ADMIN);
    expect(dangling.status).toBe(200);
    tasks.dangling = dangling.body as TaskView;
    tasks.unowned = (await adminPost('/api/v1/tasks', { title: 'unowned', workspace_id: workspaces.unowned })).body as TaskView;
    tasks.own = (await adminPost('/api/v1/tasks', { title: 'alice', workspace_id: workspaces.own })).body as TaskView;
    tasks.foreign = (await adminPost('/api/v1/tasks', { title: 'bob', workspace_id: workspaces.foreign })).body as TaskView;

    sessions.own = ((await adminPost(`/api/v1/tasks/${tasks.own.id}/sessions`, {})).body as SessionView).id;
    sessions.foreign = ((await adminPost(`/api/v1/tasks/${tasks.foreign.id}/sessions`, {})).body as SessionView).id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('built the fixture the branches need', () => {
    expect(tasks.empty.workspace_id).toBe('');
    expect(tasks.dangling.workspace_id).toBe(danglingWorkspace);
    expect(tasks.unowned.workspace_id).toBe(workspaces.unowned);
    expect(tasks.own.workspace_id).toBe(workspaces.own);
    expect(tasks.foreign.workspace_id).toBe(workspaces.foreign);
  });

  describe('GET /api/v1/tasks/:id', () => {
    it.each(BRANCHES.map((branch) => [branch] as const))('task in the %s workspace', async (branch) => {
      const res = await request(t.baseUrl).get(`/api/v1/tasks/${tasks[branch].id}`).set('Authorization', alice);
      if (aliceSees(branch)) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual(tasks[branch]);
      } else {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'task not found', code: 'NOT_FOUND' });
      }
    });

    it('a missing task ⇒ 404 task not found', async () => {
      await request(t.baseUrl).get(`/api/v1/tasks/${randomUUID()}`).set('Authorization', alice).expect(404, { error: 'task not found', code: 'NOT_FOUND' });
    });

    it('the other user sees their own workspace’s task and not alice’s', async () => {
      await request(t.baseUrl).get(`/api/v1/tasks/${tasks.foreign.id}`).set('Authorization', bob).expect(200);
      const res = await request(t.baseUrl).get(`/api/v1/tasks/${tasks.own.id}`).set('Authorization', bob);
      expect(res.status).toBe(scoped ? 404 : 200);
    });

    it('the admin token is unscoped: every task', async () => {
      for (const branch of BRANCHES) {
        await request(t.baseUrl).get(`/api/v1/tasks/${tasks[branch].id}`).set('Authorization', ADMIN).expect(200, tasks[branch]);
      }
    });
  });

  describe('GET /api/v1/tasks lists exactly the visible tasks, oldest first', () => {
    it('as alice', async () => {
      const expected = BRANCHES.filter(aliceSees).map((branch) => tasks[branch].id);
      expect(taskIds(await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', alice))).toEqual(expected);
      expect(expected).toHaveLength(scoped ? 4 : 5);
    });

    it('as bob', async () => {
      const expected = BRANCHES.filter((branch) => !scoped || branch !== 'own').map((branch) => tasks[branch].id);
      expect(taskIds(await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', bob))).toEqual(expected);
    });

    it('as the admin', async () => {
      const expected = BRANCHES.map((branch) => tasks[branch].id);
      expect(taskIds(await request(t.baseUrl).get('/api/v1/tasks').set('Authorization', ADMIN))).toEqual(expected);
    });

    it('filtered by workspace_id', async () => {
      const list = async (workspaceId: string) =>
        taskIds(await request(t.baseUrl).get('/api/v1/tasks').query({ workspace_id: workspaceId }).set('Authorization', alice));
      expect(await list(workspaces.foreign)).toEqual(scoped ? [] : [tasks.foreign.id]);
      expect(await list(workspaces.own)).toEqual([tasks.own.id]);
      expect(await list(workspaces.unowned)).toEqual([tasks.unowned.id]);
      expect(await list(danglingWorkspace)).toEqual([tasks.dangling.id]);
      expect(await list('no-such-workspace')).toEqual([]);
      expect(await list('')).toEqual(BRANCHES.filter(aliceSees).map((branch) => tasks[branch].id));
    });
  });

  describe('GET /api/v1/workspaces lists only visible workspaces', () => {
    it('as alice', async () => {
      const res = await request(t.baseUrl).get('/api/v1/workspaces').set('Authorization', alice);
      expect(res.status).toBe(200);
      const ids = (res.body as { workspaces: { id: string }[] }).workspaces.map((w) => w.id);
      expect(ids).toEqual(scoped ? [workspaces.unowned, workspaces.own] : [workspaces.unowned, workspaces.own, workspaces.foreign]);
    });

    it('as the admin', async () => {
      const res = await request(t.baseUrl).get('/api/v1/workspaces').set('Authorization', ADMIN);
      expect(res.status).toBe(200);
      expect((res.body as { workspaces: { id: string; owner_id: string }[] }).workspaces).toEqual([
        expect.objectContaining({ id: workspaces.unowned, owner_id: '' }),
        expect.objectContaining({ id: workspaces.own, owner_id: aliceId }),
        expect.objectContaining({ id: workspaces.foreign, owner_id: bobId }),
      ]);
    });
  });

  describe('POST /api/v1/tasks into a workspace: it must exist and be visible', () => {
    it('into a foreign workspace', async () => {
      const before = await countRows('tasks');
      const res = await request(t.baseUrl).post('/api/v1/tasks').set('Authorization', alice).send({ title: 'x', workspace_id: workspaces.foreign });
      if (scoped) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'workspace not found', code: 'NOT_FOUND' });
        expect(await countRows('tasks')).toBe(before);
      } else {
        expect(res.status).toBe(201);
        expect((res.body as TaskView).workspace_id).toBe(workspaces.foreign);
        await t.db.query(`DELETE FROM tasks WHERE id = $1`, [(res.body as TaskView).id]);
      }
    });

    it('into a missing (or dangling) workspace ⇒ 404 workspace not found', async () => {
      const before = await countRows('tasks');
      for (const workspaceId of ['no-such-workspace', danglingWorkspace]) {
        await request(t.baseUrl)
          .post('/api/v1/tasks')
          .set('Authorization', alice)
          .send({ title: 'x', workspace_id: workspaceId })
          .expect(404, { error: 'workspace not found', code: 'NOT_FOUND' });
      }
      expect(await countRows('tasks')).toBe(before);
    });

    it('into an unowned or own workspace, or none', async () => {
      for (const workspaceId of [workspaces.unowned, workspaces.own, undefined]) {
        const res = await request(t.baseUrl).post('/api/v1/tasks').set('Authorization', alice).send({ title: 'ok', workspace_id: workspaceId });
        expect(res.status).toBe(201);
        expect((res.body as TaskView).workspace_id).toBe(workspaceId ?? '');
        await t.db.query(`DELETE FROM tasks WHERE id = $1`, [(res.body as TaskView).id]);
      }
    });
  });

  describe('POST /api/v1/workspaces: a user owns what they create', () => {
    it('owner_id of the created workspace', async () => {
      const res = await request(t.baseUrl).post('/api/v1/workspaces').set('Authorization', alice).send({ name: 'mine' });
      expect(res.status).toBe(201);
      expect((res.body as { owner_id: string }).owner_id).toBe(scoped ? aliceId : '');
      await t.db.query(`DELETE FROM workspaces WHERE id = $1`, [(res.body as { id: string }).id]);
    });

    it('owner_id naming another user', async () => {
      const before = await countRows('workspaces');
      const res = await request(t.baseUrl).post('/api/v1/workspaces').set('Authorization', alice).send({ name: 'x', owner_id: bobId });
      if (scoped) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'owner_id may name another user only when the caller is an admin', code: 'VALIDATION_ERROR' });
        expect(await countRows('workspaces')).toBe(before);
      } else {
        expect(res.status).toBe(201);
        expect((res.body as { owner_id: string }).owner_id).toBe(bobId);
        await t.db.query(`DELETE FROM workspaces WHERE id = $1`, [(res.body as { id: string }).id]);
      }
    });
  });

  describe('sessions follow their task', () => {
    it('GET /api/v1/sessions/:id', async () => {
      const own = await request(t.baseUrl).get(`/api/v1/sessions/${sessions.own}`).set('Authorization', alice);
      expect(own.status).toBe(200);
      expect(own.body).toEqual(expect.objectContaining({ id: sessions.own, task_id: tasks.own.id, state: 'CREATED' }));
      const foreign = await request(t.baseUrl).get(`/api/v1/sessions/${sessions.foreign}`).set('Authorization', alice);
      if (scoped) {
        expect(foreign.status).toBe(404);
        expect(foreign.body).toEqual({ error: 'session not found', code: 'NOT_FOUND' });
      } else {
        expect(foreign.status).toBe(200);
        expect((foreign.body as SessionView).id).toBe(sessions.foreign);
      }
      await request(t.baseUrl).get(`/api/v1/sessions/${randomUUID()}`).set('Authorization', alice).expect(404, { error: 'session not found', code: 'NOT_FOUND' });
    });
  });

  describe('a denied id and a missing id answer byte-identical 404s (never 403)', () => {
    type Call = (id: string) => request.Test;
    const calls: readonly [string, 'task' | 'session', Call][] = [
      ['GET /api/v1/tasks/:id', 'task', (id) => request(t.baseUrl).get(`/api/v1/tasks/${id}`).set('Authorization', alice)],
      ['POST /api/v1/tasks/:id/archive', 'task', (id) => request(t.baseUrl).post(`/api/v1/tasks/${id}/archive`).set('Authorization', alice)],
      [
        'POST /api/v1/tasks/:id/sessions',
        'task',
        (id) => request(t.baseUrl).post(`/api/v1/tasks/${id}/sessions`).set('Authorization', alice).send({}),
      ],
      ['GET /api/v1/sessions/:id', 'session', (id) => request(t.baseUrl).get(`/api/v1/sessions/${id}`).set('Authorization', alice)],
      [
        'PATCH /api/v1/sessions/:id',
        'session',
        (id) => request(t.baseUrl).patch(`/api/v1/sessions/${id}`).set('Authorization', alice).send({ state: 'RUNNING' }),
      ],
    ];

    /** Headers that identify the response rather than the outcome. */
    const comparableHeaders = (res: request.Response): Record<string, string> => {
      const { date: _date, 'x-request-id': _requestId, ...rest } = res.headers as Record<string, string>;
      return rest;
    };

    it.each(calls)('%s', async (_route, kind, call) => {
      const expectedText = JSON.stringify({ error: `${kind} not found`, code: 'NOT_FOUND' });
      const missing = await call(randomUUID());
      expect(missing.status).toBe(404);
      expect(missing.text).toBe(expectedText);
      expect(missing.headers['content-type']).toBe('application/json; charset=utf-8');
      if (!scoped) return; // nothing is denied when auth is disabled (the foreign id is covered elsewhere)

      const sessionsBefore = await countRows('task_sessions');
      const denied = await call(kind === 'task' ? tasks.foreign.id : sessions.foreign);
      expect(denied.status).toBe(404);
      expect(denied.text).toBe(missing.text);
      expect(denied.headers['content-type']).toBe(missing.headers['content-type']);
      expect(comparableHeaders(denied)).toEqual(comparableHeaders(missing));

      // The denial happened before any effect.
      expect(await countRows('task_sessions')).toBe(sessionsBefore);
      const task = await t.db.query<{ state: string; archived_at: Date | null }>(`SELECT state, archived_at FROM tasks WHERE id = $1`, [
        tasks.foreign.id,
      ]);
      expect(task.rows).toEqual([{ state: 'OPEN', archived_at: null }]);
      const session = await t.db.query<{ state: string }>(`SELECT state FROM task_sessions WHERE id = $1`, [sessions.foreign]);
      expect(session.rows).toEqual([{ state: 'CREATED' }]);
    });
  });

  it('without any credential: ' + (scoped ? '401 everywhere' : 'the synthetic identity sees everything'), async () => {
    const res = await request(t.baseUrl).get(`/api/v1/tasks/${tasks.foreign.id}`);
    if (scoped) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'authentication required', code: 'UNAUTHENTICATED' });
    } else {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(tasks.foreign);
      expect(taskIds(await request(t.baseUrl).get('/api/v1/tasks'))).toEqual(BRANCHES.map((branch) => tasks[branch].id));
    }
  });
});
