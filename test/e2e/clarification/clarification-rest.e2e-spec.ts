import { randomUUID } from 'node:crypto';
import http from 'node:http';
import request from 'supertest';
import { type Answer, WaiterStore } from '#clarification';
import { BundleRepository, ClarificationStatus, WinnerDelivery } from '#clarification/testing';
import { startApp, type TestApp } from '../../support/app.js';
import { claimAndDeliver as winAndDeliver, claimer } from '../../support/claim.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { lifecycleCounts, lifecycleMoved, questionEventsOf } from '../../support/lifecycle-events.js';

/**
 * The REST clarification surface (baseline "REST surface", "Durable rows", "Lifecycle
 * transitions"): asking, reading, waiting and cancelling, what each lifecycle trigger does to the
 * rows and the live waiters, and the task pending-action projection — all against real PostgreSQL.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const ANSWERS: Answer[] = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

/** TWO_QUESTIONS as the service normalizes them (defaults filled in). */
const NORMALIZED = [
  {
    id: 'db',
    title: 'Database',
    prompt: 'Which database?',
    options: [
      { option_id: 'pg', label: 'PostgreSQL', description: 'relational' },
      { option_id: 'sqlite', label: 'SQLite', description: '' },
    ],
  },
  {
    id: 'q2',
    title: '',
    prompt: 'Deploy now?',
    options: [
      { option_id: 'q2_opt1', label: 'Yes', description: '' },
      { option_id: 'q2_opt2', label: 'No', description: '' },
    ],
  },
];

interface Row {
  id: string;
  task_session_id: string;
  task_id: string;
  turn_id: string;
  author_type: string;
  type: string;
  content: string;
  requests_input: boolean;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

interface WaitResult {
  status: number;
  body: unknown;
  elapsedMs: number;
}

const option = (label: string) => ({ label });
const question = (prompt: string, extra: Record<string, unknown> = {}) => ({ prompt, options: [option('A'), option('B')], ...extra });

describe('clarification REST surface', () => {
  let t: TestApp;
  const api = () => request(t.baseUrl);

  async function ask(fixture: SessionFixture, questions: unknown = TWO_QUESTIONS, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await api()
      .post('/api/v1/clarification/request')
      .send({ session_id: fixture.sessionId, questions, ...extra })
      .expect(200);
    expect(res.body).toEqual({ pending_id: expect.stringMatching(UUID) });
    return res.body.pending_id as string;
  }

  async function rowsOf(pendingId: string): Promise<Row[]> {
    const { rows } = await t.db.query<Row>(
      `SELECT id, task_session_id, task_id, turn_id, author_type, type, content, requests_input, metadata, created_at, updated_at
         FROM task_session_messages WHERE metadata->>'pending_id' = $1 ORDER BY (metadata->>'question_index')::int`,
      [pendingId],
    );
    return rows;
  }

  async function counts(): Promise<{ messages: number; turns: number }> {
    const { rows } = await t.db.query<{ messages: number; turns: number }>(
      `SELECT (SELECT count(*)::int FROM task_session_messages) AS messages, (SELECT count(*)::int FROM task_session_turns) AS turns`,
    );
    return rows[0];
  }

  async function sessionState(sessionId: string): Promise<string> {
    return (await api().get(`/api/v1/sessions/${sessionId}`).expect(200)).body.state as string;
  }

  /**
   * Starts a GET /:id/wait long poll and resolves once the server holds it as a live waiter; the
   * poll's outcome is `.result` (wrapped, so that awaiting this does not await the poll itself).
   */
  async function startWait(app: TestApp, pendingId: string, expectedWaiters = 1): Promise<{ result: Promise<WaitResult> }> {
    const started = Date.now();
    // A connection of its own, closed after the answer: nothing lingers to hold a server shutdown.
    const result = new Promise<WaitResult>((resolve, reject) => {
      http
        .get(`${app.baseUrl}/api/v1/clarification/${pendingId}/wait`, { agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
              elapsedMs: Date.now() - started,
            }),
          );
          res.on('error', reject);
        })
        .on('error', reject);
    });
    await eventually(() => (app.app.get(WaiterStore).waiterCount(pendingId) >= expectedWaiters ? true : undefined), 5000, 'the wait becoming a live waiter');
    return { result };
  }

  const claim = (pendingId: string) =>
    claimer(t).completeActiveBundle(pendingId, ClarificationStatus.Answered, new Map(ANSWERS.map((a) => [a.question_id, a])));

  /** The task as raw JSON, read through GET /tasks/:id and through the list. */
  async function projection(taskId: string) {
    const one = JSON.parse((await api().get(`/api/v1/tasks/${taskId}`).expect(200)).text) as Record<string, unknown>;
    const list = JSON.parse((await api().get('/api/v1/tasks').expect(200)).text) as { tasks: Record<string, unknown>[] };
    const listed = list.tasks.find((task) => task.id === taskId);
    expect(listed).toBeDefined();
    for (const body of [one, listed!]) {
      expect(Object.prototype.hasOwnProperty.call(body, 'task_pending_action')).toBe(true);
      expect(Object.prototype.hasOwnProperty.call(body, 'primary_session_pending_action')).toBe(true);
    }
    const pick = (body: Record<string, unknown>) => ({ task: body.task_pending_action, primary: body.primary_session_pending_action });
    expect(pick(listed!)).toEqual(pick(one));
    return pick(one);
  }

  beforeAll(async () => {
    t = await startApp({ config: { waitTimeoutMs: 20_000 } });
  });

  afterAll(async () => {
    await t.close();
  });

  describe('asking', () => {
    it('writes one clarification_request row per question on the current turn and puts the session in WAITING_FOR_INPUT', async () => {
      const fixture = await createRunningSession(t);
      const before = await counts();
      const pendingId = await ask(fixture, TWO_QUESTIONS, { task_id: fixture.taskId, context: 'setting up' });
      expect(await counts()).toEqual({ messages: before.messages + 2, turns: before.turns });

      const rows = await rowsOf(pendingId);
      expect(rows).toHaveLength(2);
      rows.forEach((row, index) => {
        expect(row).toMatchObject({
          task_session_id: fixture.sessionId,
          task_id: fixture.taskId,
          turn_id: fixture.turnId,
          author_type: 'agent',
          type: 'clarification_request',
          content: NORMALIZED[index].prompt,
          requests_input: true,
        });
        expect(row.metadata).toEqual({
          pending_id: pendingId,
          question_id: NORMALIZED[index].id,
          question: NORMALIZED[index],
          question_index: index,
          question_total: 2,
          context: 'setting up',
          status: 'pending',
          asked_by: { kind: 'synthetic', id: null },
        });
      });
      expect(await sessionState(fixture.sessionId)).toBe('WAITING_FOR_INPUT');

      const got = await api().get(`/api/v1/clarification/${pendingId}`).expect(200);
      expect(Object.keys(got.body).sort()).toEqual([
        'context', 'created_at', 'expires_at', 'pending_id', 'questions', 'resolved_by', 'response', 'session_id', 'status', 'task_id',
      ]);
      const firstCreated = rows.map((row) => row.created_at.getTime()).reduce((a, b) => Math.min(a, b));
      expect(got.body).toEqual({
        pending_id: pendingId,
        session_id: fixture.sessionId,
        task_id: fixture.taskId,
        questions: NORMALIZED,
        context: 'setting up',
        created_at: new Date(firstCreated).toISOString(),
        status: 'pending',
        response: null,
        resolved_by: null,
        expires_at: null,
      });
      expect(got.body.created_at).toMatch(ISO);
    });

    it('defaults every option id to q{i}_opt{j} (1-based) and context to ""', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture, [question('One?'), { prompt: 'Two?', options: [option('x'), { label: 'y', option_id: 'mine' }, option('z')] }]);
      const got = await api().get(`/api/v1/clarification/${pendingId}`).expect(200);
      expect(got.body.context).toBe('');
      expect(got.body.questions).toEqual([
        { id: 'q1', title: '', prompt: 'One?', options: [
          { option_id: 'q1_opt1', label: 'A', description: '' },
          { option_id: 'q1_opt2', label: 'B', description: '' },
        ] },
        { id: 'q2', title: '', prompt: 'Two?', options: [
          { option_id: 'q2_opt1', label: 'x', description: '' },
          { option_id: 'mine', label: 'y', description: '' },
          { option_id: 'q2_opt3', label: 'z', description: '' },
        ] },
      ]);
      expect((await rowsOf(pendingId)).map((row) => row.metadata.context)).toEqual(['', '']);
    });

    it('creates a turn when the session has none', async () => {
      const workspace = await api().post('/api/v1/workspaces').send({ name: 'no turns' }).expect(201);
      const task = await api().post('/api/v1/tasks').send({ title: 'no turns', workspace_id: workspace.body.id }).expect(201);
      const session = await api().post(`/api/v1/tasks/${task.body.id}/sessions`).send({}).expect(201);
      await api().patch(`/api/v1/sessions/${session.body.id}`).send({ state: 'RUNNING' }).expect(200);
      const res = await api().post('/api/v1/clarification/request').send({ session_id: session.body.id, questions: TWO_QUESTIONS }).expect(200);
      const { rows: turns } = await t.db.query<{ id: string; task_id: string; metadata: unknown }>(
        'SELECT id, task_id, metadata FROM task_session_turns WHERE task_session_id = $1',
        [session.body.id],
      );
      expect(turns).toEqual([{ id: expect.any(String), task_id: task.body.id, metadata: {} }]);
      expect((await rowsOf(res.body.pending_id)).map((row) => row.turn_id)).toEqual([turns[0].id, turns[0].id]);
      expect(await sessionState(session.body.id)).toBe('WAITING_FOR_INPUT');
    });

    it('returns the same pending_id for an identical still-pending bundle of the session and writes nothing', async () => {
      const fixture = await createRunningSession(t);
      const first = await ask(fixture, TWO_QUESTIONS, { context: 'first' });
      const rowsBefore = await rowsOf(first);
      const before = await counts();
      // Same prompts and options (ids, titles and context play no part).
      const same = TWO_QUESTIONS.map((q, index) => ({ ...q, id: `other${index}`, title: 'another title' }));
      expect(await ask(fixture, TWO_QUESTIONS)).toBe(first);
      expect(await ask(fixture, same, { context: 'second' })).toBe(first);
      expect(await counts()).toEqual(before);
      expect(await rowsOf(first)).toEqual(rowsBefore);

      // Different options, another session, or once the first is no longer pending ⇒ a new bundle.
      const changed = [TWO_QUESTIONS[0], { prompt: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'Later' }] }];
      const second = await ask(fixture, changed);
      expect(second).not.toBe(first);
      const otherSession = await createRunningSession(t);
      expect(await ask(otherSession, TWO_QUESTIONS)).not.toBe(first);
      expect((await claim(first)).claimed).toBe(true);
      const third = await ask(fixture, TWO_QUESTIONS);
      expect([first, second]).not.toContain(third);
      expect(await counts()).toEqual({ messages: before.messages + 6, turns: before.turns + 1 });
    });

    it('unknown session ⇒ 404, terminal session ⇒ 409, mismatched task_id ⇒ 400; nothing written', async () => {
      const fixture = await createRunningSession(t);
      const before = await counts();
      const post = (body: Record<string, unknown>) => api().post('/api/v1/clarification/request').send(body);
      expect((await post({ session_id: randomUUID(), questions: TWO_QUESTIONS }).expect(404)).body).toEqual({ error: 'session not found', code: 'NOT_FOUND' });
      expect((await post({ session_id: fixture.sessionId, task_id: randomUUID(), questions: TWO_QUESTIONS }).expect(400)).body).toEqual({
        error: "task_id does not match the session's task",
        code: 'VALIDATION_ERROR',
      });
      await api().patch(`/api/v1/sessions/${fixture.sessionId}`).send({ state: 'COMPLETED' }).expect(200);
      expect((await post({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(409)).body).toEqual({
        error: 'session has ended (COMPLETED)',
        code: 'CONFLICT',
      });
      expect(await counts()).toEqual(before);
      expect(await sessionState(fixture.sessionId)).toBe('COMPLETED');
    });
  });

  describe('creation validation: 400 naming the field, nothing written', () => {
    let fixture: SessionFixture;
    beforeAll(async () => {
      fixture = await createRunningSession(t);
    });

    const five = ['1', '2', '3', '4', '5'].map((n) => question(`Q${n}?`));
    const cases: { label: string; body: () => Record<string, unknown>; error: string }[] = [
      { label: 'no questions', body: () => ({ questions: [] }), error: 'questions must contain 1 to 4 questions' },
      { label: 'five questions', body: () => ({ questions: five }), error: 'questions must contain 1 to 4 questions' },
      { label: 'questions missing', body: () => ({}), error: 'questions must be an array' },
      { label: 'questions not an array', body: () => ({ questions: 'Which?' }), error: 'questions must be an array' },
      { label: 'question not an object', body: () => ({ questions: ['Which?'] }), error: 'questions[0] must be an object' },
      { label: 'prompt missing', body: () => ({ questions: [question('ok'), { options: [option('A'), option('B')] }] }), error: 'questions[1].prompt is required' },
      { label: 'prompt blank', body: () => ({ questions: [question('   ')] }), error: 'questions[0].prompt is required' },
      { label: 'prompt not a string', body: () => ({ questions: [question('x', { prompt: 7 })] }), error: 'questions[0].prompt must be a string' },
      { label: 'prompt too long', body: () => ({ questions: [question('p'.repeat(4001))] }), error: 'questions[0].prompt must be at most 4000 characters' },
      { label: 'one option', body: () => ({ questions: [question('x', { options: [option('A')] })] }), error: 'questions[0].options must contain 2 to 6 options' },
      {
        label: 'seven options',
        body: () => ({ questions: [question('x', { options: ['1', '2', '3', '4', '5', '6', '7'].map(option) })] }),
        error: 'questions[0].options must contain 2 to 6 options',
      },
      { label: 'options missing', body: () => ({ questions: [{ prompt: 'x' }] }), error: 'questions[0].options must contain 2 to 6 options' },
      { label: 'option label missing', body: () => ({ questions: [question('x', { options: [option('A'), { description: 'd' }] })] }), error: 'questions[0].options[1].label is required' },
      { label: 'option not an object', body: () => ({ questions: [question('x', { options: ['A', 'B'] })] }), error: 'questions[0].options[0] must be an object' },
      {
        label: 'duplicate question ids',
        body: () => ({ questions: [question('a', { id: 'same' }), question('b', { id: 'same' })] }),
        error: 'questions has a duplicate id "same"',
      },
      {
        label: 'explicit id colliding with a default id',
        body: () => ({ questions: [question('a', { id: 'q2' }), question('b')] }),
        error: 'questions has a duplicate id "q2"',
      },
      {
        label: 'duplicate option ids',
        body: () => ({ questions: [question('a', { options: [{ label: 'A', option_id: 'x' }, { label: 'B', option_id: 'x' }] })] }),
        error: 'questions[0].options has a duplicate option_id "x"',
      },
      {
        label: 'explicit option id colliding with a default option id',
        body: () => ({ questions: [question('a', { options: [{ label: 'A', option_id: 'q1_opt2' }, { label: 'B' }] })] }),
        error: 'questions[0].options has a duplicate option_id "q1_opt2"',
      },
      { label: 'unknown question key', body: () => ({ questions: [question('a', { multi: true })] }), error: 'questions[0].multi is not an allowed field' },
      {
        label: 'unknown option key',
        body: () => ({ questions: [question('a', { options: [option('A'), { label: 'B', value: 2 }] })] }),
        error: 'questions[0].options[1].value is not an allowed field',
      },
      { label: 'unknown top-level key', body: () => ({ questions: TWO_QUESTIONS, priority: 'high' }), error: 'priority is not an allowed field' },
      { label: 'context not a string', body: () => ({ questions: TWO_QUESTIONS, context: 5 }), error: 'context must be shorter than or equal to 20000 characters; context must be a string' },
    ];

    it.each(cases)('$label ⇒ 400', async ({ body, error }) => {
      const before = await counts();
      const res = await api()
        .post('/api/v1/clarification/request')
        .send({ session_id: fixture.sessionId, ...body() })
        .expect(400);
      expect(res.body).toEqual({ error, code: 'VALIDATION_ERROR' });
      expect(await counts()).toEqual(before);
      expect(await sessionState(fixture.sessionId)).toBe('RUNNING');
    });

    it('session_id missing ⇒ 400 naming it', async () => {
      const before = await counts();
      const res = await api().post('/api/v1/clarification/request').send({ questions: TWO_QUESTIONS }).expect(400);
      expect(res.body).toEqual({ error: 'session_id must be shorter than or equal to 200 characters; session_id should not be empty; session_id must be a string', code: 'VALIDATION_ERROR' });
      expect(await counts()).toEqual(before);
    });
  });

  describe('reading', () => {
    it('GET /:id of an unknown bundle ⇒ 404', async () => {
      const res = await api().get(`/api/v1/clarification/${randomUUID()}`).expect(404);
      expect(res.body).toEqual({ error: 'clarification request not found', code: 'NOT_FOUND' });
    });

    it('GET /:id reads the durable rows on any instance, after a restart too: status, then the winner\'s response once final (A7)', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture, TWO_QUESTIONS, { context: 'restart me' });
      const live = (await api().get(`/api/v1/clarification/${pendingId}`).expect(200)).body as Record<string, unknown>;
      expect(live).toMatchObject({ pending_id: pendingId, status: 'pending', response: null, context: 'restart me' });

      const restarted = await startApp({ databaseUrl: t.databaseUrl });
      try {
        const other = () => request(restarted.baseUrl);
        expect((await other().get(`/api/v1/clarification/${pendingId}`).expect(200)).body).toEqual(live);
        // The bundle is still active (R6): a long poll on the restarted instance waits and gets the answer.
        const { result: wait } = await startWait(restarted, pendingId);
        const won = await winAndDeliver(restarted, pendingId, { answers: ANSWERS });
        expect(won?.delivery).toBe(WinnerDelivery.LiveWaiter);
        expect(await wait).toMatchObject({ status: 200, body: won!.response });
        const answered = (await other().get(`/api/v1/clarification/${pendingId}`).expect(200)).body as Record<string, unknown>;
        expect(answered).toEqual({
          ...live,
          status: 'answered',
          response: { answers: ANSWERS, rejected: false, reject_reason: '' },
          // who won (the claim helper answers as the synthetic caller over REST).
          resolved_by: { kind: 'synthetic', user_id: null, name: null, surface: 'rest', at: expect.stringMatching(ISO) },
          // The resolution's receipt, once final (the one the winner got).
          receipt: won!.response.receipt,
        });
        // And the same on the first instance, which never saw the answer happen.
        expect((await api().get(`/api/v1/clarification/${pendingId}`).expect(200)).body).toEqual(answered);
      } finally {
        await restarted.close();
      }
    });

    it('GET /:id/wait of a bundle already answered returns the winner\'s response at once', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      const won = await winAndDeliver(t, pendingId, { answers: ANSWERS });
      expect(won?.delivery).toBe(WinnerDelivery.Resumed);
      const res = await api().get(`/api/v1/clarification/${pendingId}/wait`).expect(200);
      expect(res.body).toEqual({ pending_id: pendingId, answers: ANSWERS, rejected: false, reject_reason: '', responded_at: expect.any(String), receipt: won!.response.receipt });
      expect(won!.response.receipt).toEqual(expect.any(String));
    });
  });

  describe('waiting', () => {
    let short: TestApp;
    beforeAll(async () => {
      short = await startApp({ config: { waitTimeoutMs: 250 } });
    });
    afterAll(async () => {
      await short.close();
    });

    it('a long poll that outlives waitTimeoutMs ⇒ 504; the bundle stays pending and live', async () => {
      const fixture = await createRunningSession(short);
      const res = await request(short.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
      const pendingId = res.body.pending_id as string;
      const { result: wait } = await startWait(short, pendingId);
      const result = await wait;
      expect(result.status).toBe(504);
      expect(result.body).toEqual({ error: 'clarification wait timed out; the question is still pending — wait again', code: 'WAIT_ENDED' });
      expect(result.elapsedMs).toBeGreaterThanOrEqual(200);
      expect(short.app.get(WaiterStore).waiterCount(pendingId)).toBe(0);
      expect(await short.app.get(BundleRepository).isBundleActive(pendingId)).toBe(true);
      const { rows } = await short.db.query(`SELECT metadata->>'status' AS status FROM task_session_messages WHERE metadata->>'pending_id' = $1`, [pendingId]);
      expect(rows).toEqual([{ status: 'pending' }, { status: 'pending' }]);
    });

    it('GET /:id/wait of an unknown bundle ⇒ 404 without blocking', async () => {
      const res = await api().get(`/api/v1/clarification/${randomUUID()}/wait`).expect(404);
      expect(res.body).toEqual({ error: 'clarification request not found', code: 'NOT_FOUND' });
    });

    it('shutting the server down ends a blocked long poll with 504 instead of holding the shutdown', async () => {
      const draining = await startApp({ config: { waitTimeoutMs: 5_000 } });
      const fixture = await createRunningSession(draining);
      const res = await request(draining.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
      const { result: wait } = await startWait(draining, res.body.pending_id as string);
      const started = Date.now();
      const closed = draining.close().then(() => Date.now() - started);
      const result = await wait;
      expect(result.status).toBe(504);
      expect(result.body).toEqual({ error: 'clarification wait ended: the server is shutting down — wait again', code: 'WAIT_ENDED' });
      expect(result.elapsedMs).toBeLessThan(2_000);
      expect(await closed).toBeLessThan(2_000);
    });
  });

  describe('cancel', () => {
    it('cancels an active bundle: wakes the waiters with 504, marks the pending rows cancelled; again ⇒ 409 not active', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      const before = await lifecycleCounts(t);
      const { result: first } = await startWait(t, pendingId, 1);
      const { result: second } = await startWait(t, pendingId, 2);
      const res = await api().post(`/api/v1/clarification/${pendingId}/cancel`).expect(200);
      expect(res.body).toEqual({ success: true });
      for (const result of await Promise.all([first, second])) {
        expect(result.status).toBe(504);
        expect(result.body).toEqual({ error: 'clarification wait ended: the question was cancelled', code: 'WAIT_ENDED' });
      }
      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['cancelled', 'cancelled']);
      expect((await questionEventsOf(t.db, pendingId)).map(({ type, session_id, task_id }) => ({ type, session_id, task_id }))).toEqual([
        { type: 'ASKED', session_id: fixture.sessionId, task_id: fixture.taskId },
        { type: 'CANCELLED', session_id: fixture.sessionId, task_id: fixture.taskId },
      ]);
      expect(await lifecycleMoved(t, before)).toEqual({ 'clarification.cancelled': 1, 'session.message.updated': 1 });

      const notActive = { error: 'clarification request is no longer active', code: 'CONFLICT' };
      expect((await api().post(`/api/v1/clarification/${pendingId}/cancel`).expect(409)).body).toEqual(notActive);
      expect((await api().get(`/api/v1/clarification/${pendingId}`).expect(200)).body).toMatchObject({ status: 'cancelled', response: null });
      expect((await api().get(`/api/v1/clarification/${pendingId}/wait`).expect(409)).body).toEqual(notActive);
      expect((await claim(pendingId)).claimed).toBe(false);
      expect(await rowsOf(pendingId)).toEqual(rows);
    });

    it('unknown bundle ⇒ 404; an active bundle cancels on any instance, after a restart too', async () => {
      expect((await api().post(`/api/v1/clarification/${randomUUID()}/cancel`).expect(404)).body).toEqual({ error: 'clarification request not found', code: 'NOT_FOUND' });
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      const { result: wait } = await startWait(t, pendingId);
      const restarted = await startApp({ databaseUrl: t.databaseUrl });
      try {
        await request(restarted.baseUrl).post(`/api/v1/clarification/${pendingId}/cancel`).expect(200);
      } finally {
        await restarted.close();
      }
      // The waiter held by the other instance is woken through the database's signal.
      expect(await wait).toMatchObject({ status: 504, body: { error: 'clarification wait ended: the question was cancelled', code: 'WAIT_ENDED' } });
      expect((await rowsOf(pendingId)).map((row) => row.metadata.status)).toEqual(['cancelled', 'cancelled']);
    });
  });

  describe('lifecycle triggers through the API', () => {
    it.each(['COMPLETED', 'FAILED', 'CANCELLED'])('session PATCHed to %s ⇒ current pending rows expired, waiters woken, not claimable', async (state) => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      const { result: wait } = await startWait(t, pendingId);
      await api().patch(`/api/v1/sessions/${fixture.sessionId}`).send({ state }).expect(200);
      const result = await wait;
      expect(result.status).toBe(504);
      expect(result.body).toEqual({ error: 'clarification wait ended: the question expired', code: 'WAIT_ENDED' });
      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['expired', 'expired']);
      rows.forEach((row) => expect(row.metadata).not.toHaveProperty('agent_disconnected'));
      expect((await claim(pendingId)).claimed).toBe(false);
      expect((await api().get(`/api/v1/clarification/${pendingId}`).expect(200)).body).toMatchObject({ status: 'expired', response: null });
      expect(await projection(fixture.taskId)).toEqual({ task: null, primary: null });
    });

    it('task archived ⇒ every session’s current pending rows expired, waiters woken', async () => {
      const fixture = await createRunningSession(t);
      const second = await api().post(`/api/v1/tasks/${fixture.taskId}/sessions`).send({}).expect(201);
      await api().patch(`/api/v1/sessions/${second.body.id}`).send({ state: 'RUNNING' }).expect(200);
      const secondFixture = { ...fixture, sessionId: second.body.id as string };
      const a = await ask(fixture);
      const b = await ask(secondFixture, [question('Second session?')]);
      const waits = [(await startWait(t, a)).result, (await startWait(t, b)).result];
      expect(await projection(fixture.taskId)).toEqual({ task: 'clarification', primary: 'clarification' });

      await api().post(`/api/v1/tasks/${fixture.taskId}/archive`).expect(200);
      for (const result of await Promise.all(waits)) {
        expect(result.status).toBe(504);
        expect(result.body).toEqual({ error: 'clarification wait ended: the question expired', code: 'WAIT_ENDED' });
      }
      expect((await rowsOf(a)).map((row) => row.metadata.status)).toEqual(['expired', 'expired']);
      expect((await rowsOf(b)).map((row) => row.metadata.status)).toEqual(['expired']);
      expect((await claim(a)).claimed).toBe(false);
      expect(await projection(fixture.taskId)).toEqual({ task: null, primary: null });
    });

    it('a new turn ⇒ the older bundle is superseded: rows untouched, waiters woken, not claimable, reported inactive', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      const rowsBefore = await rowsOf(pendingId);
      const { result: wait } = await startWait(t, pendingId);
      await api().post(`/api/v1/sessions/${fixture.sessionId}/turns`).expect(201);
      const result = await wait;
      expect(result.status).toBe(504);
      expect(result.body).toEqual({ error: 'clarification wait ended: the question was superseded by a newer turn', code: 'WAIT_ENDED' });
      expect(await rowsOf(pendingId)).toEqual(rowsBefore);
      expect((await claim(pendingId)).claimed).toBe(false);
      expect((await api().get(`/api/v1/clarification/${pendingId}`).expect(200)).body).toMatchObject({ status: 'inactive', response: null });
      expect(await projection(fixture.taskId)).toEqual({ task: null, primary: null });
      // The same questions on the new turn are a new bundle (the old one is not pending any more).
      const again = await ask(fixture);
      expect(again).not.toBe(pendingId);
      expect(await rowsOf(pendingId)).toEqual(rowsBefore);
    });

    it('completing the current turn while the agent waits ⇒ detached: waiters woken, rows marked, still active and claimable', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      const { result: wait } = await startWait(t, pendingId);
      await api().post(`/api/v1/sessions/${fixture.sessionId}/turns/${fixture.turnId}/complete`).expect(200);
      const result = await wait;
      expect(result.status).toBe(504);
      expect(result.body).toEqual({ error: 'clarification wait ended: the agent was detached; the question stays pending', code: 'WAIT_ENDED' });
      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => [row.metadata.status, row.metadata.agent_disconnected])).toEqual([
        ['pending', true],
        ['pending', true],
      ]);
      // Repeating it writes nothing.
      await api().post(`/api/v1/sessions/${fixture.sessionId}/turns/${fixture.turnId}/complete`).expect(200);
      expect(await rowsOf(pendingId)).toEqual(rows);

      expect(await projection(fixture.taskId)).toEqual({ task: 'clarification', primary: 'clarification' });
      expect(await t.app.get(BundleRepository).isBundleActive(pendingId)).toBe(true);
      expect((await api().get(`/api/v1/clarification/${pendingId}`).expect(200)).body).toMatchObject({ status: 'pending' });
      const claimed = await claim(pendingId);
      expect(claimed.claimed).toBe(true);
      expect(claimed.rows.map((row) => row.metadata.agent_disconnected)).toEqual([true, true]);
    });

    it('completing a turn that is not current detaches nothing', async () => {
      const fixture = await createRunningSession(t);
      const newer = await api().post(`/api/v1/sessions/${fixture.sessionId}/turns`).expect(201);
      const pendingId = await ask(fixture);
      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.turn_id)).toEqual([newer.body.id, newer.body.id]);
      await api().post(`/api/v1/sessions/${fixture.sessionId}/turns/${fixture.turnId}/complete`).expect(200);
      expect(await rowsOf(pendingId)).toEqual(rows);
      expect(await t.app.get(BundleRepository).isBundleActive(pendingId)).toBe(true);
    });
  });

  describe('pending-action projection', () => {
    it('"clarification" while a session has an active bundle; the primary field follows the newest session', async () => {
      const fixture = await createRunningSession(t);
      expect(await projection(fixture.taskId)).toEqual({ task: null, primary: null });

      const first = await ask(fixture);
      expect(await projection(fixture.taskId)).toEqual({ task: 'clarification', primary: 'clarification' });

      // A newer session becomes the primary one; it has nothing pending.
      const newer = await api().post(`/api/v1/tasks/${fixture.taskId}/sessions`).send({}).expect(201);
      await api().patch(`/api/v1/sessions/${newer.body.id}`).send({ state: 'RUNNING' }).expect(200);
      expect(await projection(fixture.taskId)).toEqual({ task: 'clarification', primary: null });

      const second = await ask({ ...fixture, sessionId: newer.body.id as string }, [question('On the newer session?')]);
      expect(await projection(fixture.taskId)).toEqual({ task: 'clarification', primary: 'clarification' });

      // Answer the older session's bundle: only the primary one still blocks.
      expect((await winAndDeliver(t, first, { answers: ANSWERS }))?.delivery).toBe(WinnerDelivery.Resumed);
      expect(await projection(fixture.taskId)).toEqual({ task: 'clarification', primary: 'clarification' });

      await api().post(`/api/v1/clarification/${second}/cancel`).expect(200);
      expect(await projection(fixture.taskId)).toEqual({ task: null, primary: null });
    });

    it('a claimed bundle no longer counts, even before its delivery', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      expect(await projection(fixture.taskId)).toEqual({ task: 'clarification', primary: 'clarification' });
      expect((await claim(pendingId)).claimed).toBe(true);
      expect(await projection(fixture.taskId)).toEqual({ task: null, primary: null });
    });
  });
});
