import { createHash, randomUUID } from 'node:crypto';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';

/**
 * The task projection REST API (workspaces, tasks, sessions, turns, messages) end to end against a
 * real PostgreSQL database. Every write path is checked against the rows it leaves behind.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STATE_LIST = 'CREATED, STARTING, RUNNING, IDLE, WAITING_FOR_INPUT, COMPLETED, FAILED, CANCELLED';

type Table = 'workspaces' | 'tasks' | 'task_sessions' | 'task_session_turns' | 'task_session_messages';

interface Json {
  [key: string]: unknown;
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64url');
const iso = (value: Date | null) => (value ? value.toISOString() : null);

describe('task projection API', () => {
  let t: TestApp;
  const api = () => request(t.baseUrl);

  async function count(table: Table): Promise<number> {
    const { rows } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    return rows[0].n;
  }

  async function createTask(title = 'a task', workspaceId?: string): Promise<Json> {
    const body: Json = { title };
    if (workspaceId !== undefined) body.workspace_id = workspaceId;
    const res = await api().post('/api/v1/tasks').send(body).expect(201);
    return res.body as Json;
  }

  async function createSession(taskId: string, body?: Json): Promise<Json> {
    const req = api().post(`/api/v1/tasks/${taskId}/sessions`);
    const res = await (body === undefined ? req : req.send(body)).expect(201);
    return res.body as Json;
  }

  async function sessionRow(id: string) {
    const { rows } = await t.db.query<{ state: string; updated_at: Date }>(
      'SELECT state, updated_at FROM task_sessions WHERE id = $1',
      [id],
    );
    return rows[0];
  }

  beforeAll(async () => {
    t = await startApp();
  });

  afterAll(async () => {
    await t.close();
  });

  describe('happy paths', () => {
    it('creates and lists workspaces', async () => {
      const before = await count('workspaces');
      const first = await api().post('/api/v1/workspaces').send({ name: 'Alpha', owner_id: 'user-1' }).expect(201);
      expect(Object.keys(first.body).sort()).toEqual(['created_at', 'id', 'name', 'owner_id']);
      expect(first.body).toEqual({ id: expect.stringMatching(UUID), name: 'Alpha', owner_id: 'user-1', created_at: expect.stringMatching(ISO) });
      const second = await api().post('/api/v1/workspaces').send({ name: 'Beta' }).expect(201);
      expect(second.body).toEqual({ id: expect.stringMatching(UUID), name: 'Beta', owner_id: '', created_at: expect.stringMatching(ISO) });
      expect(await count('workspaces')).toBe(before + 2);

      const { rows } = await t.db.query<{ name: string; owner_id: string; created_at: Date }>(
        'SELECT name, owner_id, created_at FROM workspaces WHERE id = $1',
        [first.body.id],
      );
      expect(rows).toEqual([{ name: 'Alpha', owner_id: 'user-1', created_at: new Date(first.body.created_at as string) }]);

      const list = await api().get('/api/v1/workspaces').expect(200);
      expect(Object.keys(list.body)).toEqual(['workspaces', 'next_cursor']);
      expect(list.body.next_cursor).toBe('');
      const ours = (list.body.workspaces as Json[]).filter((w) => w.id === first.body.id || w.id === second.body.id);
      expect(ours).toEqual([first.body, second.body]);
    });

    it('creates, reads, lists (oldest first, filtered by workspace) and archives tasks', async () => {
      const workspace = (await api().post('/api/v1/workspaces').send({ name: 'Tasks home' }).expect(201)).body as Json;
      const before = await count('tasks');
      const loose = await createTask('no workspace');
      expect(Object.keys(loose).sort()).toEqual([
        'archived_at',
        'created_at',
        'id',
        'primary_session_pending_action',
        'state',
        'task_pending_action',
        'title',
        'updated_at',
        'workspace_id',
      ]);
      expect(loose).toEqual({
        id: expect.stringMatching(UUID),
        workspace_id: '',
        title: 'no workspace',
        state: 'OPEN',
        archived_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        task_pending_action: null,
        primary_session_pending_action: null,
      });
      const first = await createTask('first', workspace.id as string);
      const second = await createTask('second', workspace.id as string);
      expect(first).toMatchObject({ workspace_id: workspace.id, title: 'first', state: 'OPEN', archived_at: null });
      expect(await count('tasks')).toBe(before + 3);

      const { rows } = await t.db.query<{ workspace_id: string; title: string; state: string; archived_at: Date | null; created_at: Date; updated_at: Date }>(
        'SELECT workspace_id, title, state, archived_at, created_at, updated_at FROM tasks WHERE id = $1',
        [first.id],
      );
      expect({ ...rows[0], created_at: iso(rows[0].created_at), updated_at: iso(rows[0].updated_at) }).toEqual({
        workspace_id: workspace.id,
        title: 'first',
        state: 'OPEN',
        archived_at: null,
        created_at: first.created_at,
        updated_at: first.updated_at,
      });

      await api().get(`/api/v1/tasks/${first.id}`).expect(200, first);

      const filtered = await api().get('/api/v1/tasks').query({ workspace_id: workspace.id }).expect(200);
      expect(filtered.body).toEqual({ tasks: [first, second], next_cursor: '' });

      const all = await api().get('/api/v1/tasks').expect(200);
      const ids = (all.body.tasks as Json[]).map((task) => task.id);
      expect(ids).toEqual(expect.arrayContaining([loose.id, first.id, second.id]));
      expect(ids.indexOf(loose.id)).toBeLessThan(ids.indexOf(first.id));
      expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
      // An empty workspace_id filter means "not filtered".
      expect((await api().get('/api/v1/tasks?workspace_id=').expect(200)).body).toEqual(all.body);
      expect((await api().get('/api/v1/tasks').query({ workspace_id: randomUUID() }).expect(200)).body).toEqual({ tasks: [], next_cursor: '' });

      const archived = await api().post(`/api/v1/tasks/${first.id}/archive`).expect(200);
      expect(archived.body).toEqual({
        ...first,
        state: 'ARCHIVED',
        archived_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(archived.body.updated_at).toBe(archived.body.archived_at);
      const again = await api().post(`/api/v1/tasks/${first.id}/archive`).expect(200);
      expect(again.body).toEqual(archived.body);
      await api().get(`/api/v1/tasks/${first.id}`).expect(200, archived.body);
      const stored = await t.db.query<{ state: string; archived_at: Date }>('SELECT state, archived_at FROM tasks WHERE id = $1', [first.id]);
      expect(stored.rows).toEqual([{ state: 'ARCHIVED', archived_at: new Date(archived.body.archived_at as string) }]);
      // The other task is untouched.
      await api().get(`/api/v1/tasks/${second.id}`).expect(200, second);
    });

    it('creates a session, stores only the SHA-256 of its agent token, and reads it back', async () => {
      const task = await createTask('session host');
      const before = await count('task_sessions');
      const created = await createSession(task.id as string, { resume_url: 'http://localhost:7777/resume?x=1' });
      expect(Object.keys(created).sort()).toEqual(['agent_token', 'created_at', 'id', 'resume_url', 'state', 'task_id', 'updated_at']);
      expect(created).toEqual({
        id: expect.stringMatching(UUID),
        task_id: task.id,
        state: 'CREATED',
        resume_url: 'http://localhost:7777/resume?x=1',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        agent_token: expect.stringMatching(/^parley_sat_[A-Za-z0-9_-]{43}$/),
      });
      expect(await count('task_sessions')).toBe(before + 1);

      const token = created.agent_token as string;
      const { rows } = await t.db.query<{ agent_token_sha256: string; state: string; resume_url: string; task_id: string }>(
        'SELECT agent_token_sha256, state, resume_url, task_id FROM task_sessions WHERE id = $1',
        [created.id],
      );
      expect(rows).toEqual([{ agent_token_sha256: sha256(token), state: 'CREATED', resume_url: 'http://localhost:7777/resume?x=1', task_id: task.id }]);
      const leaked = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM task_sessions s WHERE strpos(row_to_json(s)::text, $1) > 0`,
        [token],
      );
      expect(leaked.rows[0].n).toBe(0);

      const { agent_token: _token, ...view } = created;
      const got = await api().get(`/api/v1/sessions/${created.id}`).expect(200);
      expect(got.body).toEqual(view);
      expect(got.body).not.toHaveProperty('agent_token');

      // Without a body, resume_url defaults to "" and every session gets its own token.
      const bare = await createSession(task.id as string);
      expect(bare).toMatchObject({ task_id: task.id, state: 'CREATED', resume_url: '' });
      expect(bare.agent_token).not.toBe(token);
    });

    it('starts and completes turns (completion is idempotent)', async () => {
      const task = await createTask('turns');
      const session = await createSession(task.id as string);
      const before = await count('task_session_turns');
      const turn = await api().post(`/api/v1/sessions/${session.id}/turns`).expect(201);
      expect(turn.body).toEqual({ id: expect.stringMatching(UUID), session_id: session.id, started_at: expect.stringMatching(ISO) });
      expect(Object.keys(turn.body).sort()).toEqual(['id', 'session_id', 'started_at']);
      expect(await count('task_session_turns')).toBe(before + 1);
      const { rows } = await t.db.query<{ task_session_id: string; task_id: string; completed_at: Date | null; metadata: unknown }>(
        'SELECT task_session_id, task_id, completed_at, metadata FROM task_session_turns WHERE id = $1',
        [turn.body.id],
      );
      expect(rows).toEqual([{ task_session_id: session.id, task_id: task.id, completed_at: null, metadata: {} }]);

      const done = await api().post(`/api/v1/sessions/${session.id}/turns/${turn.body.id}/complete`).expect(200);
      expect(done.body).toEqual({
        id: turn.body.id,
        session_id: session.id,
        task_id: task.id,
        started_at: turn.body.started_at,
        completed_at: expect.stringMatching(ISO),
      });
      const again = await api().post(`/api/v1/sessions/${session.id}/turns/${turn.body.id}/complete`).expect(200);
      expect(again.body).toEqual(done.body);
      const stored = await t.db.query<{ completed_at: Date }>('SELECT completed_at FROM task_session_turns WHERE id = $1', [turn.body.id]);
      expect(iso(stored.rows[0].completed_at)).toBe(done.body.completed_at);
    });
  });

  describe('validation writes nothing', () => {
    let taskId: string;
    let sessionId: string;

    beforeAll(async () => {
      taskId = (await createTask('validation host')).id as string;
      sessionId = (await createSession(taskId)).id as string;
    });

    interface BodyCase {
      label: string;
      method: 'post' | 'patch';
      path: () => string;
      body: unknown;
      table: Table;
      error: string;
    }

    const workspaces = () => '/api/v1/workspaces';
    const tasks = () => '/api/v1/tasks';
    const sessions = () => `/api/v1/tasks/${taskId}/sessions`;
    const session = () => `/api/v1/sessions/${sessionId}`;

    const cases: BodyCase[] = [
      { label: 'workspace: missing name', method: 'post', path: workspaces, body: {}, table: 'workspaces', error: 'name must be shorter than or equal to 200 characters; name should not be empty; name must be a string' },
      { label: 'workspace: name of the wrong type', method: 'post', path: workspaces, body: { name: 5 }, table: 'workspaces', error: 'name must be shorter than or equal to 200 characters; name must be a string' },
      { label: 'workspace: empty name', method: 'post', path: workspaces, body: { name: '' }, table: 'workspaces', error: 'name should not be empty' },
      { label: 'workspace: name too long', method: 'post', path: workspaces, body: { name: 'n'.repeat(201) }, table: 'workspaces', error: 'name must be shorter than or equal to 200 characters' },
      { label: 'workspace: unknown field', method: 'post', path: workspaces, body: { name: 'x', foo: 1 }, table: 'workspaces', error: 'foo is not an allowed field' },
      { label: 'workspace: owner_id of the wrong type', method: 'post', path: workspaces, body: { name: 'x', owner_id: 5 }, table: 'workspaces', error: 'owner_id must be shorter than or equal to 200 characters; owner_id must be a string' },
      { label: 'workspace: array body', method: 'post', path: workspaces, body: [{ name: 'x' }], table: 'workspaces', error: '0 is not an allowed field; name must be shorter than or equal to 200 characters; name should not be empty; name must be a string' },
      { label: 'task: missing title', method: 'post', path: tasks, body: {}, table: 'tasks', error: 'title must be shorter than or equal to 500 characters; title should not be empty; title must be a string' },
      { label: 'task: title of the wrong type', method: 'post', path: tasks, body: { title: true }, table: 'tasks', error: 'title must be shorter than or equal to 500 characters; title must be a string' },
      { label: 'task: empty title', method: 'post', path: tasks, body: { title: '' }, table: 'tasks', error: 'title should not be empty' },
      { label: 'task: unknown field', method: 'post', path: tasks, body: { title: 'x', state: 'OPEN' }, table: 'tasks', error: 'state is not an allowed field' },
      { label: 'task: workspace_id of the wrong type', method: 'post', path: tasks, body: { title: 'x', workspace_id: 5 }, table: 'tasks', error: 'workspace_id must be shorter than or equal to 200 characters; workspace_id must be a string' },
      { label: 'session: resume_url of the wrong type', method: 'post', path: sessions, body: { resume_url: 5 }, table: 'task_sessions', error: 'resume_url must be shorter than or equal to 2000 characters; resume_url must be a URL address' },
      { label: 'session: empty resume_url', method: 'post', path: sessions, body: { resume_url: '' }, table: 'task_sessions', error: 'resume_url must be a URL address' },
      { label: 'session: resume_url not http(s)', method: 'post', path: sessions, body: { resume_url: 'ftp://example.com/x' }, table: 'task_sessions', error: 'resume_url must be a URL address' },
      { label: 'session: resume_url not a URL', method: 'post', path: sessions, body: { resume_url: 'not a url' }, table: 'task_sessions', error: 'resume_url must be a URL address' },
      { label: 'session: unknown field', method: 'post', path: sessions, body: { agent_token: 'parley_sat_x' }, table: 'task_sessions', error: 'agent_token is not an allowed field' },
      // Optional means "may be left out": null is refused by name (found by schemathesis: it reached the service and answered 500).
      { label: 'session: resume_url null', method: 'post', path: sessions, body: { resume_url: null }, table: 'task_sessions', error: 'resume_url must not be null (leave it out instead)' },
      { label: 'task: workspace_id null', method: 'post', path: tasks, body: { title: 'x', workspace_id: null }, table: 'tasks', error: 'workspace_id must not be null (leave it out instead)' },
      { label: 'session state: missing state', method: 'patch', path: session, body: {}, table: 'task_sessions', error: `state must be one of ${STATE_LIST}` },
      { label: 'session state: wrong type', method: 'patch', path: session, body: { state: 5 }, table: 'task_sessions', error: `state must be one of ${STATE_LIST}` },
      { label: 'session state: empty string', method: 'patch', path: session, body: { state: '' }, table: 'task_sessions', error: `state must be one of ${STATE_LIST}` },
      { label: 'session state: unknown value', method: 'patch', path: session, body: { state: 'running' }, table: 'task_sessions', error: `state must be one of ${STATE_LIST}` },
      { label: 'session state: unknown field', method: 'patch', path: session, body: { state: 'RUNNING', task_id: 'x' }, table: 'task_sessions', error: 'task_id is not an allowed field' },
    ];

    it.each(cases)('$label ⇒ 400', async ({ method, path, body, table, error }) => {
      const rowsBefore = await count(table);
      const stateBefore = await sessionRow(sessionId);
      const res = await api()[method](path()).send(body as object).expect(400);
      expect(res.body).toEqual({ error, code: 'VALIDATION_ERROR' });
      expect(await count(table)).toBe(rowsBefore);
      expect(await sessionRow(sessionId)).toEqual(stateBefore);
      expect(stateBefore.state).toBe('CREATED');
    });

    it.each([
      { label: 'workspace', path: workspaces, table: 'workspaces' as const },
      { label: 'task', path: tasks, table: 'tasks' as const },
      { label: 'session', path: sessions, table: 'task_sessions' as const },
    ])('$label: bad JSON ⇒ 400, nothing written', async ({ path, table }) => {
      const before = await count(table);
      const res = await api().post(path()).set('content-type', 'application/json').send('{"title": "x",').expect(400);
      expect(res.body).toEqual({ error: "Body is not valid JSON but content-type is set to 'application/json'", code: 'VALIDATION_ERROR' });
      expect(await count(table)).toBe(before);
    });

    it('bad JSON on PATCH ⇒ 400, state unchanged', async () => {
      const before = await sessionRow(sessionId);
      const res = await api().patch(session()).set('content-type', 'application/json').send('{state: RUNNING}').expect(400);
      expect(res.body).toEqual({ error: "Body is not valid JSON but content-type is set to 'application/json'", code: 'VALIDATION_ERROR' });
      expect(await sessionRow(sessionId)).toEqual(before);
    });

    it('an empty JSON body ⇒ 400, nothing written', async () => {
      const before = await count('tasks');
      const res = await api().post('/api/v1/tasks').set('content-type', 'application/json').send('').expect(400);
      expect(res.body).toEqual({ error: expect.stringMatching(/^Body cannot be empty/), code: 'VALIDATION_ERROR' });
      expect(await count('tasks')).toBe(before);
    });

    it('a task in an unknown workspace ⇒ 404, nothing written', async () => {
      const before = await count('tasks');
      const res = await api().post('/api/v1/tasks').send({ title: 'x', workspace_id: randomUUID() }).expect(404);
      expect(res.body).toEqual({ error: 'workspace not found', code: 'NOT_FOUND' });
      expect(await count('tasks')).toBe(before);
    });

    it.each([
      { label: 'unknown field', query: 'foo=1', error: 'foo is not an allowed field' },
      { label: 'workspace_id of the wrong type (repeated)', query: 'workspace_id=a&workspace_id=b', error: 'workspace_id must be shorter than or equal to 200 characters; workspace_id must be a string' },
      { label: 'workspace_id too long', query: `workspace_id=${'w'.repeat(201)}`, error: 'workspace_id must be shorter than or equal to 200 characters' },
    ])('task list query: $label ⇒ 400', async ({ query, error }) => {
      const res = await api().get(`/api/v1/tasks?${query}`).expect(400);
      expect(res.body).toEqual({ error, code: 'VALIDATION_ERROR' });
    });

    it.each([
      { label: 'limit of the wrong type', query: 'limit=abc', error: 'limit must not be greater than 200; limit must not be less than 1; limit must be an integer number' },
      { label: 'fractional limit', query: 'limit=1.5', error: 'limit must be an integer number' },
      { label: 'empty limit', query: 'limit=', error: 'limit must not be less than 1' },
      { label: 'limit 0', query: 'limit=0', error: 'limit must not be less than 1' },
      { label: 'limit 201', query: 'limit=201', error: 'limit must not be greater than 200' },
      { label: 'empty cursor', query: 'cursor=', error: 'cursor should not be empty' },
      { label: 'cursor of the wrong type (repeated)', query: 'cursor=a&cursor=b', error: 'cursor must be a string' },
      { label: 'unknown field', query: 'after=x', error: 'after is not an allowed field' },
    ])('message list query: $label ⇒ 400', async ({ query, error }) => {
      const res = await api().get(`/api/v1/sessions/${sessionId}/messages?${query}`).expect(400);
      expect(res.body).toEqual({ error, code: 'VALIDATION_ERROR' });
    });
  });

  describe('body size limit', () => {
    let small: TestApp;

    beforeAll(async () => {
      small = await startApp({ config: { bodyLimitBytes: 2048 } });
    });

    afterAll(async () => {
      await small.close();
    });

    it('accepts a body just under BODY_LIMIT_BYTES and refuses one over it with 413, writing nothing', async () => {
      const countTasks = async () => (await small.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks')).rows[0].n;
      const under = `{"title":"fits"}${' '.repeat(2000)}`;
      expect(Buffer.byteLength(under)).toBeLessThanOrEqual(2048);
      await request(small.baseUrl).post('/api/v1/tasks').set('content-type', 'application/json').send(under).expect(201);
      expect(await countTasks()).toBe(1);

      const over = JSON.stringify({ title: 't'.repeat(300), pad: 'p'.repeat(2000) });
      expect(Buffer.byteLength(over)).toBeGreaterThan(2048);
      const res = await request(small.baseUrl).post('/api/v1/tasks').set('content-type', 'application/json').send(over).expect(413);
      expect(res.body).toEqual({ error: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE' });
      expect(await countTasks()).toBe(1);

      const overWorkspace = JSON.stringify({ name: 'n'.repeat(100), owner_id: 'o'.repeat(3000) });
      const ws = await request(small.baseUrl).post('/api/v1/workspaces').set('content-type', 'application/json').send(overWorkspace).expect(413);
      expect(ws.body).toEqual({ error: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE' });
      expect((await small.db.query<{ n: number }>('SELECT count(*)::int AS n FROM workspaces')).rows[0].n).toBe(0);
    });
  });

  describe('unknown ids', () => {
    it('every :id route answers 404 and writes nothing', async () => {
      const missing = randomUUID();
      const before = await Promise.all((['tasks', 'task_sessions', 'task_session_turns'] as const).map(count));
      await api().get(`/api/v1/tasks/${missing}`).expect(404, { error: 'task not found', code: 'NOT_FOUND' });
      await api().post(`/api/v1/tasks/${missing}/archive`).expect(404, { error: 'task not found', code: 'NOT_FOUND' });
      await api().post(`/api/v1/tasks/${missing}/sessions`).send({}).expect(404, { error: 'task not found', code: 'NOT_FOUND' });
      await api().get(`/api/v1/sessions/${missing}`).expect(404, { error: 'session not found', code: 'NOT_FOUND' });
      await api().patch(`/api/v1/sessions/${missing}`).send({ state: 'RUNNING' }).expect(404, { error: 'session not found', code: 'NOT_FOUND' });
      await api().post(`/api/v1/sessions/${missing}/turns`).expect(404, { error: 'session not found', code: 'NOT_FOUND' });
      await api().post(`/api/v1/sessions/${missing}/turns/${randomUUID()}/complete`).expect(404, { error: 'session not found', code: 'NOT_FOUND' });
      await api().get(`/api/v1/sessions/${missing}/messages`).expect(404, { error: 'session not found', code: 'NOT_FOUND' });
      expect(await Promise.all((['tasks', 'task_sessions', 'task_session_turns'] as const).map(count))).toEqual(before);
    });

    it('a fabricated turn, or a turn of another session, is 404 and stays incomplete', async () => {
      const task = await createTask('two sessions');
      const mine = await createSession(task.id as string);
      const theirs = await createSession(task.id as string);
      const theirTurn = (await api().post(`/api/v1/sessions/${theirs.id}/turns`).expect(201)).body as Json;

      await api().post(`/api/v1/sessions/${mine.id}/turns/${randomUUID()}/complete`).expect(404, { error: 'turn not found', code: 'NOT_FOUND' });
      await api().post(`/api/v1/sessions/${mine.id}/turns/${theirTurn.id}/complete`).expect(404, { error: 'turn not found', code: 'NOT_FOUND' });
      const { rows } = await t.db.query<{ completed_at: Date | null }>('SELECT completed_at FROM task_session_turns WHERE id = $1', [theirTurn.id]);
      expect(rows).toEqual([{ completed_at: null }]);
      // The owner can still complete it.
      await api().post(`/api/v1/sessions/${theirs.id}/turns/${theirTurn.id}/complete`).expect(200);
    });
  });

  describe('session state machine', () => {
    it('walks a legal path, then refuses to leave COMPLETED and keeps the row unchanged', async () => {
      const task = await createTask('lifecycle');
      const session = await createSession(task.id as string);
      const { agent_token: _token, ...view } = session;
      let previous = view;
      for (const state of ['STARTING', 'RUNNING', 'WAITING_FOR_INPUT', 'RUNNING', 'COMPLETED']) {
        const res = await api().patch(`/api/v1/sessions/${session.id}`).send({ state }).expect(200);
        expect(res.body).toEqual({ ...previous, state, updated_at: expect.stringMatching(ISO) });
        expect(new Date(res.body.updated_at as string).getTime()).toBeGreaterThanOrEqual(new Date(previous.updated_at as string).getTime());
        const row = await sessionRow(session.id as string);
        expect({ state: row.state, updated_at: iso(row.updated_at) }).toEqual({ state, updated_at: res.body.updated_at });
        previous = res.body as Json;
      }

      const before = await t.db.query('SELECT * FROM task_sessions WHERE id = $1', [session.id]);
      const refused = await api().patch(`/api/v1/sessions/${session.id}`).send({ state: 'RUNNING' }).expect(409);
      expect(refused.body).toEqual({ error: 'state cannot change from COMPLETED to RUNNING', code: 'CONFLICT' });
      const after = await t.db.query('SELECT * FROM task_sessions WHERE id = $1', [session.id]);
      expect(after.rows).toEqual(before.rows);
      await api().get(`/api/v1/sessions/${session.id}`).expect(200, previous);

      // Staying in the same (even terminal) state is a no-op.
      await api().patch(`/api/v1/sessions/${session.id}`).send({ state: 'COMPLETED' }).expect(200, previous);
      expect((await t.db.query('SELECT * FROM task_sessions WHERE id = $1', [session.id])).rows).toEqual(before.rows);
    });

    it('refuses illegal moves out of non-terminal states too', async () => {
      const task = await createTask('illegal');
      const session = await createSession(task.id as string);
      await api().patch(`/api/v1/sessions/${session.id}`).send({ state: 'WAITING_FOR_INPUT' }).expect(409, {
        error: 'state cannot change from CREATED to WAITING_FOR_INPUT',
        code: 'CONFLICT',
      });
      await api().patch(`/api/v1/sessions/${session.id}`).send({ state: 'RUNNING' }).expect(200);
      await api().patch(`/api/v1/sessions/${session.id}`).send({ state: 'STARTING' }).expect(409, {
        error: 'state cannot change from RUNNING to STARTING',
        code: 'CONFLICT',
      });
      await api().patch(`/api/v1/sessions/${session.id}`).send({ state: 'CREATED' }).expect(409, {
        error: 'state cannot change from RUNNING to CREATED',
        code: 'CONFLICT',
      });
      expect((await sessionRow(session.id as string)).state).toBe('RUNNING');
    });

    it.each(['COMPLETED', 'FAILED', 'CANCELLED'])('a %s session refuses new turns and writes none', async (terminal) => {
      const task = await createTask(`ended ${terminal}`);
      const session = await createSession(task.id as string);
      await api().patch(`/api/v1/sessions/${session.id}`).send({ state: terminal }).expect(200);
      const before = await count('task_session_turns');
      const res = await api().post(`/api/v1/sessions/${session.id}/turns`).expect(409);
      expect(res.body).toEqual({ error: `session has ended (${terminal})`, code: 'CONFLICT' });
      expect(await count('task_session_turns')).toBe(before);
    });

    it('an archived task refuses new sessions and writes none', async () => {
      const task = await createTask('to archive');
      await api().post(`/api/v1/tasks/${task.id}/archive`).expect(200);
      const before = await count('task_sessions');
      const res = await api().post(`/api/v1/tasks/${task.id}/sessions`).send({ resume_url: 'https://example.com/r' }).expect(409);
      expect(res.body).toEqual({ error: 'task is archived', code: 'CONFLICT' });
      expect(await count('task_sessions')).toBe(before);
    });
  });

  describe('message pagination', () => {
    let sessionId: string;
    let taskId: string;
    let turnId: string;

    // Inserted in a shuffled order; equal created_at values are ordered by id.
    const rows = [
      { id: 'msg-e', at: '2025-03-01T10:00:00.123457Z', content: 'fifth' },
      { id: 'msg-c', at: '2025-03-01T10:00:00.123456Z', content: 'third' },
      { id: 'msg-a', at: '2025-03-01T10:00:00.123456Z', content: 'first' },
      { id: 'msg-g', at: '2025-03-01T10:00:01.000000Z', content: 'seventh' },
      { id: 'msg-b', at: '2025-03-01T10:00:00.123456Z', content: 'second' },
      { id: 'msg-d', at: '2025-03-01T10:00:00.123456Z', content: 'fourth' },
      { id: 'msg-0', at: '2025-03-01T10:00:00.123458Z', content: 'sixth' },
    ];
    const expectedOrder = ['msg-a', 'msg-b', 'msg-c', 'msg-d', 'msg-e', 'msg-0', 'msg-g'];

    beforeAll(async () => {
      const task = await createTask('messages');
      taskId = task.id as string;
      sessionId = (await createSession(taskId)).id as string;
      turnId = ((await api().post(`/api/v1/sessions/${sessionId}/turns`).expect(201)).body as Json).id as string;
      for (const [index, row] of rows.entries()) {
        await t.db.query(
          `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)`,
          [row.id, sessionId, taskId, index % 2 === 0 ? turnId : null, index % 2 === 0 ? 'agent' : 'user', 'message', row.content, JSON.stringify({ n: index, tags: ['x'] }), row.at],
        );
      }
      // A message of another session must never show up.
      const other = (await createSession(taskId)).id as string;
      await t.db.query(
        `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata, created_at)
         VALUES ('msg-other', $1, $2, NULL, 'agent', 'message', 'elsewhere', '{}'::jsonb, '2025-03-01T10:00:00.5Z')`,
        [other, taskId],
      );
    });

    it('returns every message in (created_at, id) order with the exact message shape', async () => {
      const res = await api().get(`/api/v1/sessions/${sessionId}/messages`).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['messages', 'next_cursor']);
      expect(res.body.next_cursor).toBe('');
      const messages = res.body.messages as Json[];
      expect(messages.map((m) => m.id)).toEqual(expectedOrder);
      const { rows: stored } = await t.db.query<{ updated_at: Date }>('SELECT updated_at FROM task_session_messages WHERE id = $1', ['msg-e']);
      expect(messages[4]).toEqual({
        id: 'msg-e',
        turn_id: turnId,
        type: 'message',
        author_type: 'agent',
        content: 'fifth',
        metadata: { n: 0, tags: ['x'] },
        created_at: '2025-03-01T10:00:00.123Z',
        updated_at: iso(stored[0].updated_at),
      });
      expect(messages[0]).toMatchObject({ id: 'msg-a', turn_id: turnId, author_type: 'agent', content: 'first', metadata: { n: 2, tags: ['x'] } });
      expect(messages[2]).toMatchObject({ id: 'msg-c', turn_id: null, author_type: 'user', content: 'third', metadata: { n: 1, tags: ['x'] } });
      for (const message of messages) {
        expect(Object.keys(message).sort()).toEqual(['author_type', 'content', 'created_at', 'id', 'metadata', 'turn_id', 'type', 'updated_at']);
      }
    });

    it('walks the cursor two at a time: no duplicates, no gaps, empty next_cursor on the last page', async () => {
      const seen: string[] = [];
      const pageSizes: number[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const query: Record<string, string | number> = { limit: 2 };
        if (cursor !== undefined) query.cursor = cursor;
        const res = await api().get(`/api/v1/sessions/${sessionId}/messages`).query(query).expect(200);
        const ids = (res.body.messages as Json[]).map((m) => m.id as string);
        seen.push(...ids);
        pageSizes.push(ids.length);
        const next = res.body.next_cursor as string;
        if (next === '') break;
        expect(next).toMatch(/^[A-Za-z0-9_-]+$/);
        cursor = next;
      }
      expect(pageSizes).toEqual([2, 2, 2, 1]);
      expect(seen).toEqual(expectedOrder);
      expect(new Set(seen).size).toBe(seen.length);
    });

    it('does not end with an empty page when the last page is full', async () => {
      const first = await api().get(`/api/v1/sessions/${sessionId}/messages`).query({ limit: 4 }).expect(200);
      expect((first.body.messages as Json[]).map((m) => m.id)).toEqual(expectedOrder.slice(0, 4));
      const second = await api().get(`/api/v1/sessions/${sessionId}/messages`).query({ limit: 3, cursor: first.body.next_cursor as string }).expect(200);
      expect((second.body.messages as Json[]).map((m) => m.id)).toEqual(expectedOrder.slice(4));
      expect(second.body.next_cursor).toBe('');
      const whole = await api().get(`/api/v1/sessions/${sessionId}/messages`).query({ limit: 7 }).expect(200);
      expect(whole.body.next_cursor).toBe('');
    });

    it('pages 50 at a time by default and up to 200 when asked', async () => {
      const many = (await createSession(taskId)).id as string;
      await t.db.query(
        `INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, type, content, created_at)
         SELECT 'bulk-' || lpad(i::text, 3, '0'), $1, $2, 'agent', 'message', 'm' || i, '2025-01-01T00:00:00Z'::timestamptz
           FROM generate_series(1, 51) AS i`,
        [many, taskId],
      );
      const first = await api().get(`/api/v1/sessions/${many}/messages`).expect(200);
      expect((first.body.messages as Json[]).length).toBe(50);
      expect((first.body.messages as Json[])[49].id).toBe('bulk-050');
      expect(first.body.next_cursor).not.toBe('');
      const rest = await api().get(`/api/v1/sessions/${many}/messages`).query({ cursor: first.body.next_cursor as string }).expect(200);
      expect(rest.body).toEqual({ messages: [expect.objectContaining({ id: 'bulk-051' })], next_cursor: '' });
      const all = await api().get(`/api/v1/sessions/${many}/messages`).query({ limit: 200 }).expect(200);
      expect((all.body.messages as Json[]).length).toBe(51);
      expect(all.body.next_cursor).toBe('');
    });

    it.each([
      { label: 'a random string', cursor: 'not-a-cursor' },
      { label: 'characters outside base64url', cursor: 'abc$def' },
      { label: 'padded base64', cursor: `${b64('["2025-03-01T10:00:00.123456Z","msg-a"]')}==` },
      { label: 'base64 of non-JSON', cursor: b64('hello world') },
      { label: 'base64 JSON object', cursor: b64('{"created_at":"2025-03-01T10:00:00.123456Z","id":"msg-a"}') },
      { label: 'base64 JSON with one key', cursor: b64('["2025-03-01T10:00:00.123456Z"]') },
      { label: 'base64 JSON with three keys', cursor: b64('["2025-03-01T10:00:00.123456Z","msg-a","x"]') },
      { label: 'base64 JSON with a number id', cursor: b64('["2025-03-01T10:00:00.123456Z",5]') },
      { label: 'base64 JSON with an empty id', cursor: b64('["2025-03-01T10:00:00.123456Z",""]') },
      { label: 'base64 JSON with a non-timestamp', cursor: b64('["yesterday","msg-a"]') },
      { label: 'base64 JSON with a millisecond timestamp', cursor: b64('["2025-03-01T10:00:00.123Z","msg-a"]') },
      { label: 'base64 JSON with an hour out of range', cursor: b64('["2025-03-01T25:00:00.000000Z","msg-a"]') },
      { label: 'base64 JSON with an impossible date', cursor: b64('["2025-02-30T10:00:00.000000Z","msg-a"]') },
      { label: 'base64 JSON with year zero', cursor: b64('["0000-01-01T00:00:00.000000Z","msg-a"]') },
    ])('a corrupt cursor ($label) ⇒ 400', async ({ cursor }) => {
      const res = await api().get(`/api/v1/sessions/${sessionId}/messages`).query({ cursor, limit: 2 }).expect(400);
      expect(res.body).toEqual({ error: 'cursor is invalid', code: 'VALIDATION_ERROR' });
    });

    it('a well-formed cursor past the end gives an empty last page', async () => {
      const cursor = b64('["2030-01-01T00:00:00.000000Z","zzz"]');
      await api().get(`/api/v1/sessions/${sessionId}/messages`).query({ cursor }).expect(200, { messages: [], next_cursor: '' });
    });
  });
});
