/**
 * list_pending_questions_kandev on the external MCP surface (/mcp), rules
 * L1–L16, D1–D7, M5/M5a — always through the MCP SDK client against the real server and PostgreSQL.
 *
 * The list is global and ordering/pagination assertions need to know every bundle that exists, so
 * every case starts from empty clarification data: the cases share one app per auth mode and each
 * empties the tables it can write (users and their tokens stay; no case counts them). The restart
 * case (L1/L2/R6) starts its own two apps on its own database.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { insertBulkBundles, syncBundleIndex } from '../../support/bundles.js';
import type { AuthMode } from '#config';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createRunningSession, createUser, TWO_QUESTIONS } from '../../support/fixtures.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';

const LIST = 'list_pending_questions_kandev';
const ANSWER = 'answer_question_kandev';

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

/** An hour before the run: seeded timestamps are older than anything the API writes. */
const BASE_MS = Date.now() - 60 * 60 * 1000;
const at = (seconds: number): Date => new Date(BASE_MS + seconds * 1000);

interface Page {
  bundles: Bundle[];
  count: number;
  next_cursor: string;
}

interface Bundle {
  pending_id: string;
  task_id: string;
  session_id: string;
  created_at: string;
  age_seconds: number;
  context: string;
  questions: Array<{
    question_id: string;
    title: string;
    prompt: string;
    status: string;
    options: Array<{ option_id: string; label: string; description: string }>;
  }>;
}

/** Calls the list tool; asserts success and that the structured result is the raw JSON text. */
async function list(mcp: McpConnection, args: Record<string, unknown> = {}): Promise<Page> {
  const outcome = await mcp.call(LIST, args);
  if (outcome.isError) throw new Error(`list failed: ${outcome.text}`);
  const parsed = JSON.parse(outcome.text) as Page;
  expect(outcome.structured).toEqual(parsed);
  expect(parsed.count).toBe(parsed.bundles.length);
  return parsed;
}

const ids = (page: Page): string[] => page.bundles.map((bundle) => bundle.pending_id);

/** Every page from the first, `limit` at a time. */
async function walk(mcp: McpConnection, limit: number, extra: Record<string, unknown> = {}): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor = '';
  for (let guard = 0; guard < 100; guard += 1) {
    const page = await list(mcp, { ...extra, limit, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    if (!page.next_cursor) return pages;
    cursor = page.next_cursor;
  }
  throw new Error('pagination did not end');
}

async function insertWorkspace(t: TestApp, ownerId: string, id: string = `ws-${randomUUID()}`): Promise<string> {
  await t.db.query(`INSERT INTO workspaces (id, name, owner_id) VALUES ($1, $2, $3)`, [id, `workspace ${id}`, ownerId]);
  return id;
}

interface Seeded {
  taskId: string;
  sessionId: string;
  turnId: string;
}

/** A task (in `workspaceId`, '' by default), a RUNNING session and one turn started at at(0). */
async function seedSession(t: TestApp, options: { workspaceId?: string; taskId?: string; state?: string } = {}): Promise<Seeded> {
  const taskId = options.taskId ?? `task-${randomUUID()}`;
  const sessionId = `session-${randomUUID()}`;
  const turnId = `turn-${randomUUID()}`;
  await t.db.query(
    `INSERT INTO tasks (id, workspace_id, title, state) VALUES ($1, $2, 'seeded', 'OPEN') ON CONFLICT (id) DO NOTHING`,
    [taskId, options.workspaceId ?? ''],
  );
  await t.db.query(`INSERT INTO task_sessions (id, task_id, state, agent_token_sha256) VALUES ($1, $2, $3, $4)`, [
    sessionId,
    taskId,
    options.state ?? 'RUNNING',
    randomBytes(32).toString('hex'),
  ]);
  await t.db.query(
    `INSERT INTO task_session_turns (id, task_session_id, task_id, started_at, created_at) VALUES ($1, $2, $3, $4, $4)`,
    [turnId, sessionId, taskId, at(0)],
  );
  return { taskId, sessionId, turnId };
}

interface RowSpec {
  /** Defaults to q{i+1}; null leaves the key out. */
  questionId?: string | null;
  /** Defaults to 'pending'; null leaves the key out (legacy row). */
  status?: string | null;
  /** Replaces the question object (use for corrupt metadata); undefined ⇒ a well-formed question. */
  question?: unknown;
  /** Defaults to the row's position; null leaves the key out. */
  questionIndex?: unknown;
  /** Defaults to the bundle's createdAt + i ms. */
  createdAt?: Date;
  id?: string;
  /** The message's own task_id column; defaults to the session's task. */
  messageTaskId?: string;
  extra?: Record<string, unknown>;
}

function wellFormedQuestion(questionId: string, index: number) {
  return {
    id: questionId,
    title: `Title ${index + 1}`,
    prompt: `Prompt ${index + 1}?`,
    options: [
      { option_id: `${questionId}_a`, label: 'A', description: 'first' },
      { option_id: `${questionId}_b`, label: 'B', description: 'second' },
    ],
  };
}

/** A bundle written the way the service writes one (one clarification_request row per question). */
async function seedBundle(
  t: TestApp,
  session: Seeded,
  options: { createdAt: Date; pendingId?: string; rows?: RowSpec[]; context?: string | null; turnId?: string },
): Promise<{ pendingId: string; rowIds: string[] }> {
  const pendingId = options.pendingId ?? `pending-${randomUUID()}`;
  const specs = options.rows ?? [{}];
  const rowIds: string[] = [];
  for (const [index, spec] of specs.entries()) {
    const questionId = spec.questionId === null ? undefined : (spec.questionId ?? `q${index + 1}`);
    const metadata: Record<string, unknown> = {
      pending_id: pendingId,
      question: spec.question === undefined ? wellFormedQuestion(questionId ?? `q${index + 1}`, index) : spec.question,
      question_total: specs.length,
    };
    if (options.context !== null) metadata.context = options.context ?? 'seeded context';
    if (spec.questionIndex !== null) metadata.question_index = spec.questionIndex ?? index;
    if (questionId !== undefined) metadata.question_id = questionId;
    if (spec.status !== null) metadata.status = spec.status ?? 'pending';
    Object.assign(metadata, spec.extra ?? {});
    const id = spec.id ?? `msg-${randomUUID()}`;
    await t.db.query(
      `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, requests_input, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'agent', 'clarification_request', 'q', true, $5::jsonb, $6, $6)`,
      [
        id,
        session.sessionId,
        spec.messageTaskId ?? session.taskId,
        options.turnId ?? session.turnId,
        JSON.stringify(metadata),
        spec.createdAt ?? new Date(options.createdAt.getTime() + index),
      ],
    );
    rowIds.push(id);
  }
  await syncBundleIndex(t.db);
  return { pendingId, rowIds };
}

/** Asks through the public REST API (the way agents create bundles). */
async function ask(t: TestApp, sessionId: string, questions: unknown = TWO_QUESTIONS, bearer = TEST_ADMIN_TOKEN, context?: string): Promise<string> {
  const response = await request(t.baseUrl)
    .post('/api/v1/clarification/request')
    .set('authorization', `Bearer ${bearer}`)
    .send({ session_id: sessionId, questions, ...(context === undefined ? {} : { context }) })
    .expect(200);
  return response.body.pending_id as string;
}

const oneQuestion = (prompt: string) => [{ prompt, options: [{ label: 'Yes' }, { label: 'No' }] }];

/** Moves a bundle's rows to `createdAt` (+ question_index ms), keeping their D2 order. */
async function setBundleTime(t: TestApp, pendingId: string, createdAt: Date): Promise<void> {
  await t.db.query(
    `UPDATE task_session_messages
        SET created_at = $2::timestamptz + make_interval(secs => COALESCE((metadata->>'question_index')::int, 0) / 1000.0)
      WHERE metadata->>'pending_id' = $1`,
    [pendingId, createdAt],
  );
  await syncBundleIndex(t.db);
}

function assertNoNull(value: unknown, path = '$'): void {
  expect(value === null ? path : 'ok').toBe('ok');
  if (Array.isArray(value)) value.forEach((item, index) => assertNoNull(item, `${path}[${index}]`));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) assertNoNull(item, `${path}.${key}`);
  }
}

/** L3/L4/L4a: every field present with its type, never null. */
function assertBundleShape(bundle: Record<string, unknown>): void {
  expect(Object.keys(bundle).sort()).toEqual(
    ['age_seconds', 'context', 'created_at', 'pending_id', 'questions', 'session_id', 'task_id'].sort(),
  );
  for (const key of ['pending_id', 'task_id', 'session_id', 'created_at', 'context']) expect(typeof bundle[key]).toBe('string');
  expect(Number.isInteger(bundle.age_seconds)).toBe(true);
  expect(bundle.age_seconds as number).toBeGreaterThanOrEqual(0);
  expect(bundle.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  expect(Array.isArray(bundle.questions)).toBe(true);
  for (const question of bundle.questions as Array<Record<string, unknown>>) {
    expect(Object.keys(question).sort()).toEqual(['options', 'prompt', 'question_id', 'status', 'title']);
    for (const key of ['question_id', 'title', 'prompt', 'status']) expect(typeof question[key]).toBe('string');
    expect(Array.isArray(question.options)).toBe(true);
    for (const option of question.options as Array<Record<string, unknown>>) {
      expect(Object.keys(option).sort()).toEqual(['description', 'label', 'option_id']);
      for (const key of ['option_id', 'label', 'description']) expect(typeof option[key]).toBe('string');
    }
  }
  assertNoNull(bundle);
}

async function rowsText(t: TestApp, pendingId: string): Promise<string[]> {
  const { rows } = await t.db.query<{ text: string }>(
    `SELECT metadata::text || '|' || updated_at::text AS text FROM task_session_messages WHERE metadata->>'pending_id' = $1 ORDER BY id`,
    [pendingId],
  );
  return rows.map((row) => row.text);
}

/** Every table a case writes besides users and tokens: tasks, sessions, bundles and what answering leaves. */
const CASE_TABLES = [
  'task_session_messages',
  'task_session_turns',
  'task_sessions',
  'tasks',
  'workspaces',
  'clarification_bundles',
  'clarification_audit',
  'clarification_deadlines',
  'clarification_handoffs',
  'question_events',
  'decision_claims',
  'command_receipts',
  'webhook_deliveries',
  'webhook_subscriptions',
  'clarification_votes',
  'clarification_escalations',
  'workspace_members',
];

/** The shared app of each auth mode, started by the first case that needs it. */
const shared = new Map<AuthMode, TestApp>();

afterAll(async () => {
  for (const t of shared.values()) await t.close();
});

/** The shared app of `authMode` emptied of every earlier case's data, and an MCP client on it, for one test. */
async function fresh(authMode: AuthMode = 'disabled'): Promise<{ t: TestApp; mcp: McpConnection; done: () => Promise<void> }> {
  const t = shared.get(authMode) ?? (await startApp({ config: { authMode } }));
  shared.set(authMode, t);
  await t.db.query(`TRUNCATE ${CASE_TABLES.join(', ')}`);
  const bearer = authMode === 'enabled' ? TEST_ADMIN_TOKEN : undefined;
  const mcp = await connectMcp(t.baseUrl, bearer ? { bearer } : {});
  return { t, mcp, done: () => mcp.close() };
}

// ---------------------------------------------------------------------------------------------

describe('list_pending_questions_kandev (L1–L16, D1–D7)', () => {
  it('L11: no matching bundle ⇒ exactly {"bundles":[],"count":0,"next_cursor":""}, not an error', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const outcome = await mcp.call(LIST, {});
      expect(outcome.isError).toBe(false);
      expect(JSON.parse(outcome.text)).toEqual({ bundles: [], count: 0, next_cursor: '' });
      // A task and a live session without a question still list nothing.
      await createRunningSession(t);
      expect(JSON.parse((await mcp.call(LIST, { limit: 5 })).text)).toEqual({ bundles: [], count: 0, next_cursor: '' });
    } finally {
      await done();
    }
  });

  it('L1/L2/R6: the list reads durable rows — a new app instance on the same database still lists the bundle, and it is answerable', async () => {
    const first = await startApp();
    const databaseUrl = first.databaseUrl;
    let pendingId: string;
    let sessionFixture: Awaited<ReturnType<typeof createRunningSession>>;
    const firstMcp = await connectMcp(first.baseUrl);
    try {
      sessionFixture = await createRunningSession(first);
      pendingId = await ask(first, sessionFixture.sessionId, TWO_QUESTIONS, TEST_ADMIN_TOKEN, 'before restart');
      expect(ids(await list(firstMcp))).toEqual([pendingId]);
    } finally {
      await firstMcp.close();
      await first.close();
    }

    const second = await startApp({ databaseUrl });
    const mcp = await connectMcp(second.baseUrl);
    try {
      const page = await list(mcp);
      expect(ids(page)).toEqual([pendingId]);
      const [bundle] = page.bundles;
      expect(bundle).toMatchObject({
        pending_id: pendingId,
        task_id: sessionFixture.taskId,
        session_id: sessionFixture.sessionId,
        context: 'before restart',
      });
      expect(bundle?.questions.map((question) => question.question_id)).toEqual(['db', 'q2']);
      const answered = await mcp.call(ANSWER, {
        pending_id: pendingId,
        answers: [
          { question_id: 'db', selected_options: ['pg'] },
          { question_id: 'q2', custom_text: 'after restart' },
        ],
      });
      expect(answered.isError).toBe(false);
      expect(answered.structured).toMatchObject({ claimed: true, status: 'answered' });
      expect(ids(await list(mcp))).toEqual([]);
    } finally {
      await mcp.close();
      await second.close();
    }
  });

  it('L2a/D4: superseded, terminal-session (rows still pending), expired, cancelled, answered and rejected bundles are absent; a detached one is listed', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const api = request(t.baseUrl);
      const live = await createRunningSession(t);
      const livePending = await ask(t, live.sessionId);

      // Superseded: a newer turn started; the rows keep status pending.
      const superseded = await createRunningSession(t);
      const supersededPending = await ask(t, superseded.sessionId);
      await api.post(`/api/v1/sessions/${superseded.sessionId}/turns`).expect(201);

      // Terminal session whose rows were never expired (written directly): only the session predicate excludes it.
      const terminal = await createRunningSession(t);
      const terminalPending = await ask(t, terminal.sessionId);
      await t.db.query(`UPDATE task_sessions SET state = 'COMPLETED' WHERE id = $1`, [terminal.sessionId]);

      // Expired through the lifecycle.
      const expired = await createRunningSession(t);
      const expiredPending = await ask(t, expired.sessionId);
      await api.patch(`/api/v1/sessions/${expired.sessionId}`).send({ state: 'FAILED' }).expect(200);

      const cancelled = await createRunningSession(t);
      const cancelledPending = await ask(t, cancelled.sessionId);
      await api.post(`/api/v1/clarification/${cancelledPending}/cancel`).expect(200);

      const answered = await createRunningSession(t);
      const answeredPending = await ask(t, answered.sessionId);
      await api
        .post(`/api/v1/clarification/${answeredPending}/respond`)
        .send({ answers: [{ question_id: 'db', selected_options: ['pg'] }, { question_id: 'q2' }] })
        .expect(200);

      const rejected = await createRunningSession(t);
      const rejectedPending = await ask(t, rejected.sessionId);
      await api.post(`/api/v1/clarification/${rejectedPending}/respond`).send({ rejected: true }).expect(200);

      // Detached (turn completed while the agent waited): still active, still listed.
      const detached = await createRunningSession(t);
      const detachedPending = await ask(t, detached.sessionId);
      await api.post(`/api/v1/sessions/${detached.sessionId}/turns/${detached.turnId}/complete`).expect(200);
      const { rows: detachedRows } = await t.db.query(
        `SELECT metadata->>'agent_disconnected' AS d FROM task_session_messages WHERE metadata->>'pending_id' = $1`,
        [detachedPending],
      );
      expect(detachedRows.map((row) => row.d)).toEqual(['true', 'true']);

      // The superseded and terminal-session rows are still 'pending': the exclusion is the activeness rule, not status.
      const { rows } = await t.db.query(
        `SELECT DISTINCT metadata->>'status' AS status FROM task_session_messages WHERE metadata->>'pending_id' = ANY($1)`,
        [[supersededPending, terminalPending]],
      );
      expect(rows.map((row) => row.status)).toEqual(['pending']);

      const listed = ids(await list(mcp));
      expect(listed.sort()).toEqual([livePending, detachedPending].sort());
      for (const absent of [supersededPending, terminalPending, expiredPending, cancelledPending, answeredPending, rejectedPending]) {
        expect(listed).not.toContain(absent);
      }
    } finally {
      await done();
    }
  });

  it('L16: a bundle with any empty or absent question_id is absent, and answering it is VALIDATION_ERROR (not INTERNAL_ERROR) that writes nothing', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const control = await seedSession(t);
      const good = await seedBundle(t, control, { createdAt: at(1), rows: [{}, {}] });
      const absentSession = await seedSession(t);
      const absent = await seedBundle(t, absentSession, { createdAt: at(2), rows: [{}, { questionId: null }] });
      const emptySession = await seedSession(t);
      const empty = await seedBundle(t, emptySession, { createdAt: at(3), rows: [{ questionId: '' }, {}] });

      expect(ids(await list(mcp))).toEqual([good.pendingId]);

      for (const bundle of [absent, empty]) {
        const before = await rowsText(t, bundle.pendingId);
        for (const args of [
          { pending_id: bundle.pendingId, answers: [{ question_id: 'q1' }, { question_id: 'q2' }] },
          { pending_id: bundle.pendingId, answers: [{ question_id: 'q1' }] },
          { pending_id: bundle.pendingId, rejected: true },
        ]) {
          const error = await mcp.callError(ANSWER, args);
          expect(error.code).toBe('VALIDATION_ERROR');
          expect(error.message).toMatch(/question_id/);
        }
        expect(await rowsText(t, bundle.pendingId)).toEqual(before);
      }
    } finally {
      await done();
    }
  });

  it('L1a: more matching bundles than limit across two workspaces ⇒ full pages and a cursor, even behind older foreign bundles', async () => {
    const { t, mcp: adminMcp, done } = await fresh('enabled');
    const alice = await createUser(t, 'alice');
    const bob = await createUser(t, 'bob');
    const mcp = await connectMcp(t.baseUrl, { bearer: alice.token });
    try {
      const ws1 = await insertWorkspace(t, alice.id);
      const ws2 = await insertWorkspace(t, alice.id);
      const wsBob = await insertWorkspace(t, bob.id);
      // Ten foreign bundles, all older than every one of Alice's: a post-LIMIT filter would return empty pages.
      for (let i = 0; i < 10; i += 1) {
        await seedBundle(t, await seedSession(t, { workspaceId: wsBob }), { createdAt: at(i) });
      }
      const mine: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const session = await seedSession(t, { workspaceId: i % 2 === 0 ? ws1 : ws2 });
        mine.push((await seedBundle(t, session, { createdAt: at(100 + i) })).pendingId);
      }
      // One more foreign bundle interleaved among Alice's.
      await seedBundle(t, await seedSession(t, { workspaceId: wsBob }), { createdAt: at(102.5) });

      const first = await list(mcp, { limit: 3 });
      expect(first.count).toBe(3);
      expect(ids(first)).toEqual(mine.slice(0, 3));
      expect(first.next_cursor).not.toBe('');
      const second = await list(mcp, { limit: 3, cursor: first.next_cursor });
      expect(ids(second)).toEqual(mine.slice(3));
      expect(second.next_cursor).toBe('');

      // Exactly `limit` matching bundles: a full page, and no phantom next page.
      const exact = await list(mcp, { limit: 5 });
      expect(ids(exact)).toEqual(mine);
      expect(exact.next_cursor).toBe('');
      // The unscoped admin sees all sixteen.
      expect((await list(adminMcp, { limit: 200 })).count).toBe(16);
    } finally {
      await mcp.close();
      await done();
    }
  });

  it('L1b: a scoped caller with no visible workspace still sees empty-workspace and dangling-workspace tasks’ bundles, and nothing else', async () => {
    const { t, mcp: adminMcp, done } = await fresh('enabled');
    const carol = await createUser(t, 'carol');
    const dave = await createUser(t, 'dave');
    const mcp = await connectMcp(t.baseUrl, { bearer: carol.token });
    try {
      const wsDave = await insertWorkspace(t, dave.id);
      const emptyWs = await seedBundle(t, await seedSession(t, { workspaceId: '' }), { createdAt: at(1) });
      const dangling = await seedBundle(t, await seedSession(t, { workspaceId: 'ws-deleted-long-ago' }), { createdAt: at(2) });
      await seedBundle(t, await seedSession(t, { workspaceId: wsDave }), { createdAt: at(3) });

      const page = await list(mcp);
      expect(ids(page)).toEqual([emptyWs.pendingId, dangling.pendingId]);
      // Carol can answer exactly what she can see (list and answer agree, L1c).
      const answered = await mcp.call(ANSWER, { pending_id: dangling.pendingId, rejected: true });
      expect(answered.structured).toMatchObject({ claimed: true, status: 'rejected' });
      expect((await list(adminMcp)).count).toBe(2);
    } finally {
      await mcp.close();
      await done();
    }
  });

  it('L1c: the three disjuncts (empty workspace, dangling workspace, own/unowned workspace) for a scoped user; a foreign workspace’s bundle is absent', async () => {
    const { t, mcp: adminMcp, done } = await fresh('enabled');
    const erin = await createUser(t, 'erin');
    const frank = await createUser(t, 'frank');
    const mcp = await connectMcp(t.baseUrl, { bearer: erin.token });
    const frankMcp = await connectMcp(t.baseUrl, { bearer: frank.token });
    try {
      const wsErin = await insertWorkspace(t, erin.id);
      const wsUnowned = await insertWorkspace(t, '');
      const wsFrank = await insertWorkspace(t, frank.id);
      const empty = await seedBundle(t, await seedSession(t, { workspaceId: '' }), { createdAt: at(1) });
      const dangling = await seedBundle(t, await seedSession(t, { workspaceId: `ws-gone-${randomUUID()}` }), { createdAt: at(2) });
      const own = await seedBundle(t, await seedSession(t, { workspaceId: wsErin }), { createdAt: at(3) });
      const unowned = await seedBundle(t, await seedSession(t, { workspaceId: wsUnowned }), { createdAt: at(4) });
      const foreign = await seedBundle(t, await seedSession(t, { workspaceId: wsFrank }), { createdAt: at(5) });

      expect(ids(await list(mcp))).toEqual([empty.pendingId, dangling.pendingId, own.pendingId, unowned.pendingId]);
      expect(ids(await list(frankMcp))).toEqual([empty.pendingId, dangling.pendingId, unowned.pendingId, foreign.pendingId]);
      expect(ids(await list(adminMcp))).toEqual([empty, dangling, own, unowned, foreign].map((bundle) => bundle.pendingId));
      // The foreign bundle is also unanswerable for Erin (the answer tool agrees with the list).
      expect((await mcp.callError(ANSWER, { pending_id: foreign.pendingId, rejected: true })).code).toBe('NOT_FOUND');
    } finally {
      await mcp.close();
      await frankMcp.close();
      await done();
    }
  });

  it('M5: a bundle whose message task_id is empty is listed with its session’s task_id, visible to (and answerable by) the owner only', async () => {
    const { t, mcp: adminMcp, done } = await fresh('enabled');
    const owner = await createUser(t, 'owner');
    const other = await createUser(t, 'other');
    const mcp = await connectMcp(t.baseUrl, { bearer: owner.token });
    const otherMcp = await connectMcp(t.baseUrl, { bearer: other.token });
    try {
      const fixture = await createRunningSession(t, { bearer: owner.token });
      const pendingId = await ask(t, fixture.sessionId, TWO_QUESTIONS, owner.token);
      await t.db.query(`UPDATE task_session_messages SET task_id = '' WHERE metadata->>'pending_id' = $1`, [pendingId]);

      for (const caller of [mcp, adminMcp]) {
        const page = await list(caller);
        expect(ids(page)).toEqual([pendingId]);
        expect(page.bundles[0]?.task_id).toBe(fixture.taskId);
      }
      expect(ids(await list(otherMcp))).toEqual([]);
      expect((await otherMcp.callError(ANSWER, { pending_id: pendingId, rejected: true })).code).toBe('NOT_FOUND');
      const answered = await mcp.call(ANSWER, { pending_id: pendingId, rejected: true });
      expect(answered.structured).toMatchObject({ claimed: true, status: 'rejected' });
    } finally {
      await mcp.close();
      await otherMcp.close();
      await done();
    }
  });

  it('M5a: a bundle whose task_id resolves from neither source (message and session task_id both "") is omitted for every caller; scoped ⇒ NOT_FOUND, unscoped may answer', async () => {
    // task_sessions.task_id is NOT NULL REFERENCES tasks(id); the only way it is '' is a task row whose id is ''.
    const { t, mcp: adminMcp, done } = await fresh('enabled');
    const user = await createUser(t, 'user');
    const mcp = await connectMcp(t.baseUrl, { bearer: user.token });
    try {
      const unresolvable = await seedSession(t, { taskId: '', workspaceId: '' });
      const bundle = await seedBundle(t, unresolvable, { createdAt: at(1), rows: [{ messageTaskId: '' }] });
      const control = await seedBundle(t, await seedSession(t), { createdAt: at(2) });

      expect(ids(await list(adminMcp))).toEqual([control.pendingId]);
      expect(ids(await list(mcp))).toEqual([control.pendingId]);
      expect((await mcp.callError(ANSWER, { pending_id: bundle.pendingId, rejected: true })).code).toBe('NOT_FOUND');
      const answered = await adminMcp.call(ANSWER, { pending_id: bundle.pendingId, rejected: true });
      expect(answered.structured).toMatchObject({ claimed: true, status: 'rejected' });
    } finally {
      await mcp.close();
      await done();
    }
  });

  it('L3/L4/L4a/D1/D7: every field present and typed, never null; created_at is the min row time; age_seconds floors at 0 for a future created_at', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, TWO_QUESTIONS, TEST_ADMIN_TOKEN, 'picking a stack');
      // Rows 90 s and 60 s old: D1 takes the minimum (the second row is the older one here).
      await t.db.query(
        `UPDATE task_session_messages SET created_at = clock_timestamp() - make_interval(secs => CASE WHEN metadata->>'question_index' = '0' THEN 60 ELSE 90 END)
          WHERE metadata->>'pending_id' = $1`,
        [pendingId],
      );
      await syncBundleIndex(t.db);
      const { rows } = await t.db.query<{ min: Date }>(
        `SELECT MIN(created_at) AS min FROM task_session_messages WHERE metadata->>'pending_id' = $1`,
        [pendingId],
      );

      const future = await createRunningSession(t);
      const futurePending = await ask(t, future.sessionId, oneQuestion('Later?'));
      await setBundleTime(t, futurePending, new Date(Date.now() + 3600_000));

      const outcome = await mcp.call(LIST, {});
      const raw = JSON.parse(outcome.text) as { bundles: Array<Record<string, unknown>>; count: number; next_cursor: string };
      expect(Object.keys(raw).sort()).toEqual(['bundles', 'count', 'next_cursor']);
      expect(raw.bundles).toHaveLength(2);
      raw.bundles.forEach(assertBundleShape);

      const [bundle, later] = raw.bundles as unknown as Bundle[];
      expect(bundle?.pending_id).toBe(pendingId);
      expect(new Date(bundle?.created_at).getTime()).toBe(rows[0]?.min.getTime());
      expect(bundle?.age_seconds).toBeGreaterThanOrEqual(90);
      expect(bundle?.age_seconds).toBeLessThan(100);
      expect(bundle).toMatchObject({ task_id: fixture.taskId, session_id: fixture.sessionId, context: 'picking a stack' });
      expect(bundle?.questions).toEqual([
        {
          question_id: 'db',
          title: 'Database',
          prompt: 'Which database?',
          status: 'pending',
          options: [
            { option_id: 'pg', label: 'PostgreSQL', description: 'relational' },
            { option_id: 'sqlite', label: 'SQLite', description: '' },
          ],
        },
        {
          question_id: 'q2',
          title: expect.any(String),
          prompt: 'Deploy now?',
          status: 'pending',
          options: [
            { option_id: expect.any(String), label: 'Yes', description: '' },
            { option_id: expect.any(String), label: 'No', description: '' },
          ],
        },
      ]);
      // The option ids listed are exactly the ones the answer tool accepts (L4).
      const q2 = bundle?.questions[1];
      const accepted = await mcp.call(ANSWER, {
        pending_id: pendingId,
        answers: [
          { question_id: 'db', selected_options: ['sqlite'] },
          { question_id: 'q2', selected_options: [q2?.options[0]?.option_id] },
        ],
      });
      expect(accepted.structured).toMatchObject({ claimed: true });

      expect(later?.pending_id).toBe(futurePending);
      expect(later?.age_seconds).toBe(0);
      expect(later?.context).toBe('');
    } finally {
      await done();
    }
  });

  it('L4a: a legacy row without a status key is reported as "pending"; a bundle without context carries ""', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const session = await seedSession(t);
      const bundle = await seedBundle(t, session, { createdAt: at(1), rows: [{ status: null }, { status: null }], context: null });
      const page = await list(mcp);
      expect(ids(page)).toEqual([bundle.pendingId]);
      expect(page.bundles[0]?.context).toBe('');
      expect(page.bundles[0]?.questions.map((question) => question.status)).toEqual(['pending', 'pending']);
      assertBundleShape(page.bundles[0] as unknown as Record<string, unknown>);
    } finally {
      await done();
    }
  });

  it('L5/D2: questions ordered by question_index, then created_at, then id (missing/unparseable index counts as 0)', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const session = await seedSession(t);
      await seedBundle(t, session, {
        createdAt: at(10),
        rows: [
          { questionId: 'idx1', questionIndex: 1, createdAt: at(10), id: 'm-a' },
          { questionId: 'idx0-late-z', questionIndex: 0, createdAt: at(15), id: 'm-z' },
          { questionId: 'idx0-late-b', questionIndex: 0, createdAt: at(15), id: 'm-b' },
          { questionId: 'bad-index', questionIndex: 'abc', createdAt: at(12), id: 'm-c' },
          { questionId: 'no-index', questionIndex: null, createdAt: at(14), id: 'm-d' },
          { questionId: 'idx2-early', questionIndex: 2, createdAt: at(1), id: 'm-e' },
        ],
      });
      const page = await list(mcp);
      expect(page.bundles[0]?.questions.map((question) => question.question_id)).toEqual([
        'bad-index',
        'no-index',
        'idx0-late-b',
        'idx0-late-z',
        'idx1',
        'idx2-early',
      ]);
    } finally {
      await done();
    }
  });

  it('L6: bundles ordered by created_at, then pending_id on equal created_at', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const session = await seedSession(t);
      const late = await seedBundle(t, await seedSession(t), { createdAt: at(30), pendingId: 'pending-0-late' });
      const tieB = await seedBundle(t, await seedSession(t), { createdAt: at(20), pendingId: 'pending-b-tie' });
      const tieA = await seedBundle(t, await seedSession(t), { createdAt: at(20), pendingId: 'pending-a-tie' });
      const early = await seedBundle(t, session, { createdAt: at(10), pendingId: 'pending-z-early' });
      expect(ids(await list(mcp))).toEqual([early.pendingId, tieA.pendingId, tieB.pendingId, late.pendingId]);
      // The same order page by page.
      const pages = await walk(mcp, 1);
      expect(pages.flatMap(ids)).toEqual([early.pendingId, tieA.pendingId, tieB.pendingId, late.pendingId]);
    } finally {
      await done();
    }
  });

  it('L6/D1/L12: a mixed legacy bundle is positioned by its D1 created_at — the earliest of all its rows — the time it reports', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const mixed = await seedBundle(t, await seedSession(t), {
        createdAt: at(10),
        pendingId: 'pending-mixed',
        rows: [{ status: 'answered', createdAt: at(10) }, { status: 'pending', createdAt: at(30) }],
      });
      const middle = await seedBundle(t, await seedSession(t), { createdAt: at(20), pendingId: 'pending-middle' });
      const page = await list(mcp);
      expect(page.bundles.map((bundle) => [bundle.pending_id, bundle.created_at])).toEqual([
        [mixed.pendingId, at(10).toISOString()],
        [middle.pendingId, at(20).toISOString()],
      ]);
      expect((await walk(mcp, 1)).flatMap(ids)).toEqual([mixed.pendingId, middle.pendingId]);
    } finally {
      await done();
    }
  });

  it('L7/L7a: workspace_id filters (ANDed with visibility); foreign or unknown workspace ⇒ empty page, not an error; "" means unfiltered; a fabricated id returns the bundles of tasks carrying it', async () => {
    const { t, mcp: adminMcp, done } = await fresh('enabled');
    const gina = await createUser(t, 'gina');
    const hank = await createUser(t, 'hank');
    const mcp = await connectMcp(t.baseUrl, { bearer: gina.token });
    try {
      const ws1 = await insertWorkspace(t, gina.id);
      const ws2 = await insertWorkspace(t, gina.id);
      const wsHank = await insertWorkspace(t, hank.id);
      const in1 = await seedBundle(t, await seedSession(t, { workspaceId: ws1 }), { createdAt: at(1) });
      const in2 = await seedBundle(t, await seedSession(t, { workspaceId: ws2 }), { createdAt: at(2) });
      const inEmpty = await seedBundle(t, await seedSession(t, { workspaceId: '' }), { createdAt: at(3) });
      const ghost = `ws-fabricated-${randomUUID()}`;
      const inGhost = await seedBundle(t, await seedSession(t, { workspaceId: ghost }), { createdAt: at(4) });
      const inHank = await seedBundle(t, await seedSession(t, { workspaceId: wsHank }), { createdAt: at(5) });

      expect(ids(await list(mcp, { workspace_id: ws1 }))).toEqual([in1.pendingId]);
      expect(ids(await list(mcp, { workspace_id: ws2 }))).toEqual([in2.pendingId]);
      const empty = { bundles: [], count: 0, next_cursor: '' };
      // Hank's workspace exists and has a pending bundle: for Gina it is indistinguishable from an empty one.
      expect(JSON.parse((await mcp.call(LIST, { workspace_id: wsHank })).text)).toEqual(empty);
      expect(ids(await list(adminMcp, { workspace_id: wsHank }))).toEqual([inHank.pendingId]);
      // A fabricated id carried by no task ⇒ empty, not an error.
      expect(JSON.parse((await mcp.call(LIST, { workspace_id: `ws-nobody-${randomUUID()}` })).text)).toEqual(empty);
      // A fabricated id that tasks do carry (dangling) ⇒ exactly those bundles.
      expect(ids(await list(mcp, { workspace_id: ghost }))).toEqual([inGhost.pendingId]);
      // "" is "not supplied": the whole visible set, not the empty-workspace class.
      const all = [in1, in2, inEmpty, inGhost].map((bundle) => bundle.pendingId);
      expect(ids(await list(mcp, { workspace_id: '' }))).toEqual(all);
      expect(ids(await list(mcp))).toEqual(all);
    } finally {
      await mcp.close();
      await done();
    }
  });

  it('L8/D1: created_since is inclusive, accepts any RFC3339 offset, and filters on the bundle’s D1 created_at', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const b10 = await seedBundle(t, await seedSession(t), { createdAt: at(10) });
      const b20 = await seedBundle(t, await seedSession(t), { createdAt: at(20) });
      const b30 = await seedBundle(t, await seedSession(t), { createdAt: at(30) });
      // Mixed: its oldest (answered) row is before the bound, its pending row after it ⇒ excluded.
      await seedBundle(t, await seedSession(t), {
        createdAt: at(15),
        rows: [{ status: 'answered', createdAt: at(15) }, { createdAt: at(25) }],
      });

      expect(ids(await list(mcp, { created_since: at(20).toISOString() }))).toEqual([b20.pendingId, b30.pendingId]);
      // The same instant written with a +02:00 offset.
      const shifted = new Date(at(20).getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      expect(ids(await list(mcp, { created_since: shifted }))).toEqual([b20.pendingId, b30.pendingId]);
      // One millisecond later excludes the bundle created exactly at the bound.
      expect(ids(await list(mcp, { created_since: new Date(at(20).getTime() + 1).toISOString() }))).toEqual([b30.pendingId]);
      expect(ids(await list(mcp, { created_since: at(5).toISOString() }))).toContain(b10.pendingId);
      expect(JSON.parse((await mcp.call(LIST, { created_since: at(31).toISOString() })).text)).toEqual({
        bundles: [],
        count: 0,
        next_cursor: '',
      });
      // "" is not supplied.
      expect((await list(mcp, { created_since: '' })).count).toBe(4);
    } finally {
      await done();
    }
  });

  it('L9/L14/D6: cursor pages are exclusive, gap-free and stable; cursor ∩ created_since; a bundle answered between pages vanishes without shifting others', async () => {
    const { t, mcp, done } = await fresh();
    try {
      // Seven bundles; #2 and #3 share created_at (page boundary on a tie), #5 and #6 too.
      const times = [10, 20, 20, 30, 40, 40, 50];
      const seeded: string[] = [];
      for (const [index, seconds] of times.entries()) {
        seeded.push((await seedBundle(t, await seedSession(t), { createdAt: at(seconds), pendingId: `pending-${index}` })).pendingId);
      }

      const pages = await walk(mcp, 2);
      expect(pages.map((page) => page.count)).toEqual([2, 2, 2, 1]);
      expect(pages.slice(0, 3).every((page) => page.next_cursor !== '')).toBe(true);
      expect(pages[3]?.next_cursor).toBe('');
      const walked = pages.flatMap(ids);
      expect(walked).toEqual(seeded);
      expect(new Set(walked).size).toBe(7);
      // Stable: the same walk twice gives the same pages and cursors.
      const again = await walk(mcp, 2);
      expect(again).toEqual(pages.map((page) => ({ ...page, bundles: page.bundles.map((bundle) => ({ ...bundle, age_seconds: expect.any(Number) })) })));

      // L14: cursor and created_since intersect.
      const sinceThirty = { created_since: at(30).toISOString() };
      const firstFiltered = await list(mcp, { ...sinceThirty, limit: 2 });
      expect(ids(firstFiltered)).toEqual(seeded.slice(3, 5));
      expect(ids(await list(mcp, { ...sinceThirty, limit: 2, cursor: firstFiltered.next_cursor }))).toEqual(seeded.slice(5));
      // A cursor from the unfiltered walk (after #1) combined with a later created_since.
      expect(ids(await list(mcp, { cursor: pages[0]?.next_cursor, created_since: at(40).toISOString() }))).toEqual(seeded.slice(4));
      // A cursor past the bound ⇒ the cursor wins where it is stricter.
      expect(ids(await list(mcp, { cursor: pages[2]?.next_cursor, created_since: at(10).toISOString() }))).toEqual(seeded.slice(6));

      // D6: answer #2 (the next page's first) and #1 (already returned) between pages.
      const page1 = pages[0];
      for (const pendingId of [seeded[2], seeded[1]]) {
        const answered = await mcp.call(ANSWER, { pending_id: pendingId, rejected: true });
        expect(answered.structured).toMatchObject({ claimed: true });
      }
      const page2 = await list(mcp, { limit: 2, cursor: page1.next_cursor });
      expect(ids(page2)).toEqual([seeded[3], seeded[4]]);
      const page3 = await list(mcp, { limit: 2, cursor: page2.next_cursor });
      expect(ids(page3)).toEqual([seeded[5], seeded[6]]);
      expect(page3.next_cursor).toBe('');

      // D6: a bundle created earlier than an issued cursor is not returned to that cursor; a fresh call returns it.
      const backdated = await seedBundle(t, await seedSession(t), { createdAt: at(5) });
      expect(ids(await list(mcp, { limit: 2, cursor: page1.next_cursor }))).not.toContain(backdated.pendingId);
      expect(ids(await list(mcp, { limit: 2 }))[0]).toBe(backdated.pendingId);
    } finally {
      await done();
    }
  });

  it('L10: limit defaults to 50, is capped at 200, and below 1 means the default', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const session = await seedSession(t);
      // 205 one-question bundles on one session's current turn, written in one statement.
      await insertBulkBundles(t.db, { sessionId: session.sessionId, taskId: session.taskId, turnId: session.turnId }, 205, at(0));
      const expectPage = async (args: Record<string, unknown>, count: number, more: boolean) => {
        const page = await list(mcp, args);
        expect(page.count).toBe(count);
        expect(page.next_cursor !== '').toBe(more);
        return page;
      };
      await expectPage({}, 50, true);
      await expectPage({ limit: 0 }, 50, true);
      await expectPage({ limit: -7 }, 50, true);
      await expectPage({ limit: 1 }, 1, true);
      await expectPage({ limit: 7 }, 7, true);
      await expectPage({ limit: 200 }, 200, true);
      const capped = await expectPage({ limit: 1000 }, 200, true);
      const rest = await expectPage({ limit: 1000, cursor: capped.next_cursor }, 5, false);
      expect(ids(rest)).toEqual(['bulk-201', 'bulk-202', 'bulk-203', 'bulk-204', 'bulk-205']);
    } finally {
      await done();
    }
  });

  it('L12/D3: a mixed-status bundle is listed with per-question status; all-terminal and unrecognized-status bundles are not', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const mixed = await seedBundle(t, await seedSession(t), {
        createdAt: at(1),
        rows: [
          { status: 'answered', extra: { response: { question_id: 'q1', selected_options: ['q1_a'], custom_text: '' } } },
          { status: 'pending' },
          { status: null },
          { status: 'expired' },
          { status: 'weird' },
        ],
      });
      await seedBundle(t, await seedSession(t), { createdAt: at(2), rows: [{ status: 'answered' }, { status: 'rejected' }] });
      await seedBundle(t, await seedSession(t), { createdAt: at(3), rows: [{ status: 'weird' }, { status: 'cancelled' }] });

      const page = await list(mcp);
      expect(ids(page)).toEqual([mixed.pendingId]);
      expect(page.bundles[0]?.questions.map((question) => [question.question_id, question.status])).toEqual([
        ['q1', 'answered'],
        ['q2', 'pending'],
        ['q3', 'pending'],
        ['q4', 'expired'],
        // D3: a value outside the five known statuses is reported as pending (as the reference does);
        // membership is unchanged — D4 still decides what is active.
        ['q5', 'pending'],
      ]);
    } finally {
      await done();
    }
  });

  it('L13: a corrupt cursor or an unparseable created_since ⇒ VALIDATION_ERROR naming the argument', async () => {
    const { t, mcp, done } = await fresh();
    try {
      await seedBundle(t, await seedSession(t), { createdAt: at(1) });
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
      for (const cursor of [
        'not a cursor!',
        '%%%',
        'AAAA',
        b64(['x', 'y']),
        b64(['2026-01-01T00:00:00.000000Z']),
        b64({ created_at: '2026-01-01T00:00:00.000000Z', pending_id: 'p' }),
        b64(['2026-13-45T99:00:00.000000Z', 'p']),
      ]) {
        const error = await mcp.callError(LIST, { cursor });
        expect(error.code).toBe('VALIDATION_ERROR');
        expect(error.message).toMatch(/cursor/);
      }
      for (const createdSince of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00', '1700000000', 'Mon, 02 Jan 2006 15:04:05 MST']) {
        const error = await mcp.callError(LIST, { created_since: createdSince });
        expect(error.code).toBe('VALIDATION_ERROR');
        expect(error.message).toMatch(/created_since/);
      }
    } finally {
      await done();
    }
  });

  it('L15: unparseable question metadata still lists the bundle with its question_id and "" / [] fields, and it is answerable by custom_text', async () => {
    const { t, mcp, done } = await fresh();
    try {
      const bundle = await seedBundle(t, await seedSession(t), {
        createdAt: at(1),
        rows: [
          { questionId: 'broken-string', question: 'not an object' },
          { questionId: 'broken-null', question: null },
          { questionId: 'broken-types', question: { title: 7, prompt: ['x'], options: 'nope' } },
          { questionId: 'broken-options', question: { title: 'T', prompt: 'P', options: [null, 3, { label: 5 }, { option_id: 'ok', label: 'L' }] } },
          { questionId: 'no-question' },
        ],
      });
      // The last row: no question key at all.
      await t.db.query(`UPDATE task_session_messages SET metadata = metadata - 'question' WHERE metadata->>'question_id' = 'no-question'`);

      const outcome = await mcp.call(LIST, {});
      const raw = JSON.parse(outcome.text) as { bundles: Array<Record<string, unknown>> };
      expect(raw.bundles).toHaveLength(1);
      assertBundleShape(raw.bundles[0]);
      const questions = (raw.bundles[0] as unknown as Bundle).questions;
      expect(questions.map((question) => question.question_id)).toEqual([
        'broken-string',
        'broken-null',
        'broken-types',
        'broken-options',
        'no-question',
      ]);
      for (const question of [questions[0], questions[1], questions[2], questions[4]]) {
        expect(question).toEqual({ question_id: question?.question_id, title: '', prompt: '', status: 'pending', options: [] });
      }
      expect(questions[3]?.title).toBe('T');
      expect(questions[3]?.options.at(-1)).toEqual({ option_id: 'ok', label: 'L', description: '' });

      const answered = await mcp.call(ANSWER, {
        pending_id: bundle.pendingId,
        answers: questions.map((question) => ({ question_id: question.question_id, custom_text: `text for ${question.question_id}` })),
      });
      expect(answered.isError).toBe(false);
      expect(answered.structured).toMatchObject({ claimed: true, status: 'answered' });
    } finally {
      await done();
    }
  });
});
