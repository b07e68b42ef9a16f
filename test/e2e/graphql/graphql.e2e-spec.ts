/**
 * The GraphQL surface (POST /graphql, Mercurius code-first): queries, mutations, coded errors, both
 * auth modes, the committed SDL, the depth/field limits, GraphiQL, and the constant number of SQL
 * queries behind a page of tasks — always against the real server and a real PostgreSQL database.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GraphQLSchema } from 'graphql';
import request from 'supertest';
import { loadConfig } from '#config';
import { buildSchemaSdl, printSortedSchema } from '#graphql';
import { captureStatements } from '../../support/statements.js';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { browserHeaders, createRunningSession, createUser, freshBundle, type SessionFixture, signIn, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql, gqlData, graphqlErrorsOf, openStreams, subscribe, type GqlResult } from '../../support/graphql.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------

const BUNDLE_FIELDS = `pendingId taskId sessionId createdAt ageSeconds context
  questions { questionId title prompt status options { optionId label description } }`;
const PENDING = `query Pending($workspaceId: String, $createdSince: String, $after: String, $first: Int) {
  pendingQuestions(workspaceId: $workspaceId, createdSince: $createdSince, after: $after, first: $first) {
    nodes { ${BUNDLE_FIELDS} } count pageInfo { hasNextPage endCursor } } }`;
const QUESTION = `query Question($pendingId: String!) { question(pendingId: $pendingId) { ${BUNDLE_FIELDS} } }`;
const TASK_FIELDS = 'id workspaceId title state archivedAt createdAt updatedAt taskPendingAction primarySessionPendingAction';
const TASKS = `query Tasks($workspaceId: String) { tasks(workspaceId: $workspaceId) { ${TASK_FIELDS} } }`;
const WORKSPACES = `query { workspaces { id name ownerId createdAt } }`;
const RESOLUTION = 'claimed status response { answers { questionId selectedOptions customText } rejected rejectReason }';
const ANSWER = `mutation Answer($pendingId: String!, $answers: [AnswerInput!]!) {
  answerQuestion(pendingId: $pendingId, answers: $answers) { ${RESOLUTION} } }`;
const REJECT = `mutation Reject($pendingId: String!, $reason: String) { rejectQuestion(pendingId: $pendingId, reason: $reason) { ${RESOLUTION} } }`;

const NOT_FOUND = 'clarification request not found';
const NOT_ACTIVE = 'clarification request is no longer active';
/** 2000 code points (3000 UTF-16 units): a cap counted in anything but runes fails here. */
const RUNES_2000 = '😀é'.repeat(1000);
const RUNES_2001 = `${RUNES_2000}😀`;

// ---------------------------------------------------------------------------------------------
// Types and helpers
// ---------------------------------------------------------------------------------------------

interface GqlAnswer {
  questionId: string;
  selectedOptions: string[];
  customText: string;
}

interface Resolution {
  claimed: boolean;
  status: string;
  response: { answers: GqlAnswer[]; rejected: boolean; rejectReason: string };
}

interface Bundle {
  pendingId: string;
  taskId: string;
  sessionId: string;
  createdAt: string;
  ageSeconds: number;
  context: string;
  questions: Array<{
    questionId: string;
    title: string;
    prompt: string;
    status: string;
    options: Array<{ optionId: string; label: string; description: string }>;
  }>;
}

interface Connection {
  nodes: Bundle[];
  count: number;
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

interface Task {
  id: string;
  workspaceId: string;
  title: string;
  state: string;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
  taskPendingAction: string | null;
  primarySessionPendingAction: string | null;
}

/** The MCP list tool's bundle (snake_case), as GraphQL spells it. */
function camelBundle(bundle: Record<string, unknown>): Bundle {
  const questions = bundle.questions as Array<Record<string, unknown>>;
  return {
    pendingId: bundle.pending_id as string,
    taskId: bundle.task_id as string,
    sessionId: bundle.session_id as string,
    createdAt: bundle.created_at as string,
    ageSeconds: bundle.age_seconds as number,
    context: bundle.context as string,
    questions: questions.map((question) => ({
      questionId: question.question_id as string,
      title: question.title as string,
      prompt: question.prompt as string,
      status: question.status as string,
      options: (question.options as Array<Record<string, string>>).map((option) => ({
        optionId: option.option_id,
        label: option.label,
        description: option.description,
      })),
    })),
  };
}

/** ageSeconds moves with the clock: compare bundles without it. */
const withoutAge = (bundle: Bundle) => ({ ...bundle, ageSeconds: expect.any(Number) });

async function ask(t: TestApp, sessionId: string, bearer?: string, questions: unknown = TWO_QUESTIONS, context?: string): Promise<string> {
  let req = request(t.baseUrl).post('/api/v1/clarification/request');
  if (bearer) req = req.set('authorization', `Bearer ${bearer}`);
  const res = await req.send({ session_id: sessionId, questions, ...(context === undefined ? {} : { context }) });
  expect(res.status).toBe(200);
  return (res.body as { pending_id: string }).pending_id;
}

interface StoredRow {
  metadata: Record<string, unknown>;
  updated_at: string;
}

/** The bundle's rows in D2 order, with updated_at at microsecond precision ("nothing written" is checkable). */
async function bundleRows(t: TestApp, pendingId: string): Promise<StoredRow[]> {
  const { rows } = await t.db.query<StoredRow>(
    `SELECT metadata, updated_at::text AS updated_at FROM task_session_messages
      WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'
      ORDER BY COALESCE((metadata->>'question_index')::int, 0), created_at, id`,
    [pendingId],
  );
  return rows;
}

async function resumes(t: TestApp, pendingId: string): Promise<{ prompts: number; turns: number }> {
  const prompts = await t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`,
    [pendingId],
  );
  const turns = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM task_session_turns WHERE metadata->>'resume_of' = $1`, [
    pendingId,
  ]);
  return { prompts: prompts.rows[0]?.n ?? -1, turns: turns.rows[0]?.n ?? -1 };
}

/** Asserts a result is exactly one GraphQL error with `code` at `path`, data null, and returns its message. */
function expectCodedError(result: GqlResult, code: string, path: string): string {
  expect(result.body.data ?? null).toBeNull();
  expect(result.body.errors).toHaveLength(1);
  const [error] = result.body.errors ?? [];
  expect(error?.extensions?.code).toBe(code);
  expect(error?.path).toEqual([path]);
  return error?.message ?? '';
}

/** N3a form of TWO_QUESTIONS' canonical answer (question ids db, q2). */
const CANONICAL: GqlAnswer[] = [
  { questionId: 'db', selectedOptions: ['pg'], customText: '' },
  { questionId: 'q2', selectedOptions: [], customText: 'tomorrow' },
];

// ---------------------------------------------------------------------------------------------

describe('GraphQL queries and mutations (AUTH_MODE=disabled)', () => {
  let t: TestApp;
  let mcp: McpConnection;

  beforeAll(async () => {
    t = await startApp();
    mcp = await connectMcp(t.baseUrl);
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  describe('workspaces and tasks', () => {
    it('workspaces lists every workspace with the REST view’s values', async () => {
      const a = await createRunningSession(t);
      const b = await createRunningSession(t);
      const { workspaces } = await gqlData<{ workspaces: Array<Record<string, string>> }>(t, WORKSPACES);
      const rest = (await request(t.baseUrl).get('/api/v1/workspaces').expect(200)).body.workspaces as Array<Record<string, string>>;
      expect(workspaces).toEqual(
        rest.map((workspace) => ({ id: workspace.id, name: workspace.name, ownerId: workspace.owner_id, createdAt: workspace.created_at })),
      );
      expect(workspaces.map((workspace) => workspace.id)).toEqual(expect.arrayContaining([a.workspaceId, b.workspaceId]));
    });

    it('tasks(workspaceId) carries both pending-action fields: blocked, primary session not blocked, answered; filter semantics', async () => {
      const blocked = await createRunningSession(t);
      const idle = await createRunningSession(t);
      const pendingId = await ask(t, blocked.sessionId);

      const tasksOf = async (workspaceId?: string) =>
        (await gqlData<{ tasks: Task[] }>(t, TASKS, workspaceId === undefined ? {} : { workspaceId })).tasks;
      const byId = (tasks: Task[], id: string) => tasks.find((task) => task.id === id);

      let tasks = await tasksOf();
      expect(byId(tasks, blocked.taskId)).toMatchObject({ taskPendingAction: 'clarification', primarySessionPendingAction: 'clarification' });
      expect(byId(tasks, idle.taskId)).toMatchObject({ taskPendingAction: null, primarySessionPendingAction: null });

      // The same values as the REST task list, field for field.
      const rest = (await request(t.baseUrl).get('/api/v1/tasks').expect(200)).body.tasks as Array<Record<string, unknown>>;
      expect(tasks).toEqual(
        rest.map((task) => ({
          id: task.id,
          workspaceId: task.workspace_id,
          title: task.title,
          state: task.state,
          archivedAt: task.archived_at,
          createdAt: task.created_at,
          updatedAt: task.updated_at,
          taskPendingAction: task.task_pending_action,
          primarySessionPendingAction: task.primary_session_pending_action,
        })),
      );

      // A newer session on the blocked task becomes the primary one; the task stays blocked through the older one.
      const newer = await request(t.baseUrl).post(`/api/v1/tasks/${blocked.taskId}/sessions`).send({}).expect(201);
      await request(t.baseUrl).patch(`/api/v1/sessions/${newer.body.id}`).send({ state: 'RUNNING' }).expect(200);
      tasks = await tasksOf(blocked.workspaceId);
      expect(tasks).toEqual([expect.objectContaining({ id: blocked.taskId, taskPendingAction: 'clarification', primarySessionPendingAction: null })]);

      // The workspace filter: exactly the workspace's tasks; "" is "not supplied"; an unknown id is empty.
      expect((await tasksOf(idle.workspaceId)).map((task) => task.id)).toEqual([idle.taskId]);
      expect((await tasksOf('')).map((task) => task.id)).toEqual((await tasksOf()).map((task) => task.id));
      expect(await tasksOf('no-such-workspace')).toEqual([]);

      // Answered: nothing is blocked any more.
      const answered = await gqlData<{ answerQuestion: Resolution }>(t, ANSWER, { pendingId, answers: CANONICAL });
      expect(answered.answerQuestion.claimed).toBe(true);
      expect(byId(await tasksOf(), blocked.taskId)).toMatchObject({ taskPendingAction: null, primarySessionPendingAction: null });
    });
  });

  describe('question(pendingId) and pendingQuestions', () => {
    it('question returns the bundle in the list’s shape (equal to the MCP list entry), in any state; a missing id is NOT_FOUND', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, undefined, TWO_QUESTIONS, 'picking a stack');
      const { question } = await gqlData<{ question: Bundle }>(t, QUESTION, { pendingId });
      expect(question).toMatchObject({ pendingId, taskId: fixture.taskId, sessionId: fixture.sessionId, context: 'picking a stack' });
      expect(question.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Number.isInteger(question.ageSeconds) && question.ageSeconds >= 0).toBe(true);
      expect(question.questions).toEqual([
        {
          questionId: 'db',
          title: 'Database',
          prompt: 'Which database?',
          status: 'pending',
          options: [
            { optionId: 'pg', label: 'PostgreSQL', description: 'relational' },
            { optionId: 'sqlite', label: 'SQLite', description: '' },
          ],
        },
        {
          questionId: 'q2',
          title: '',
          prompt: 'Deploy now?',
          status: 'pending',
          options: [
            { optionId: 'q2_opt1', label: 'Yes', description: '' },
            { optionId: 'q2_opt2', label: 'No', description: '' },
          ],
        },
      ]);
      const listed = JSON.parse((await mcp.call('list_pending_questions_kandev', { limit: 200 })).text) as { bundles: Array<Record<string, unknown>> };
      const entry = listed.bundles.find((bundle) => bundle.pending_id === pendingId);
      expect(entry).toBeDefined();
      expect(question).toEqual(withoutAge(camelBundle(entry as Record<string, unknown>)));

      // Any state: after a rejection the bundle is still describable, with its rows' statuses.
      await gqlData(t, REJECT, { pendingId });
      const after = await gqlData<{ question: Bundle }>(t, QUESTION, { pendingId });
      expect(after.question.questions.map((q) => q.status)).toEqual(['rejected', 'rejected']);

      const missing = await gql(t, QUESTION, { pendingId: '00000000-0000-4000-8000-000000000000' });
      expect(missing.status).toBe(200);
      expect(expectCodedError(missing, 'NOT_FOUND', 'question')).toBe(NOT_FOUND);
    });

    it('pendingQuestions is the MCP list: same nodes, count, cursor; an empty page is exactly {nodes:[],count:0,pageInfo:{false,""}}', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId);
      for (const args of [{}, { limit: 1 }, { workspace_id: fixture.workspaceId }]) {
        const listed = JSON.parse((await mcp.call('list_pending_questions_kandev', args)).text) as {
          bundles: Array<Record<string, unknown>>;
          count: number;
          next_cursor: string;
        };
        const variables = {
          ...('limit' in args ? { first: args.limit } : {}),
          ...('workspace_id' in args ? { workspaceId: args.workspace_id } : {}),
        };
        const { pendingQuestions } = await gqlData<{ pendingQuestions: Connection }>(t, PENDING, variables);
        expect({ ...pendingQuestions, nodes: pendingQuestions.nodes.map(withoutAge) }).toEqual({
          nodes: listed.bundles.map((bundle) => withoutAge(camelBundle(bundle))),
          count: listed.count,
          pageInfo: { hasNextPage: listed.next_cursor !== '', endCursor: listed.next_cursor },
        });
      }
      const scoped = await gqlData<{ pendingQuestions: Connection }>(t, PENDING, { workspaceId: fixture.workspaceId });
      expect(scoped.pendingQuestions.nodes.map((bundle) => bundle.pendingId)).toEqual([pendingId]);

      const empty = await gql(t, PENDING, { createdSince: '2999-01-01T00:00:00Z' });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ data: { pendingQuestions: { nodes: [], count: 0, pageInfo: { hasNextPage: false, endCursor: '' } } } });
    });

    it('L13: a corrupt `after` or an unparseable `createdSince` is VALIDATION_ERROR with the MCP tool’s message naming the argument', async () => {
      for (const [variables, mcpArgs, field] of [
        [{ after: 'not a cursor!' }, { cursor: 'not a cursor!' }, /cursor/],
        [{ after: Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url') }, { cursor: Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url') }, /cursor/],
        [{ createdSince: 'yesterday' }, { created_since: 'yesterday' }, /created_since/],
        [{ createdSince: '2026-01-01' }, { created_since: '2026-01-01' }, /created_since/],
      ] as const) {
        const result = await gql(t, PENDING, variables);
        expect(result.status).toBe(200);
        const message = expectCodedError(result, 'VALIDATION_ERROR', 'pendingQuestions');
        expect(message).toMatch(field);
        const mcpError = await mcp.callError('list_pending_questions_kandev', mcpArgs);
        expect(mcpError.code).toBe('VALIDATION_ERROR');
        expect(message).toBe(mcpError.message);
      }
    });
  });

  describe('answerQuestion / rejectQuestion (through ResolveBundle)', () => {
    it('R1/N3a: the winner gets claimed:true and the normalized response; the rows hold it; exactly one resume', async () => {
      const { pendingId } = await freshBundle(t);
      const result = await gql<{ answerQuestion: Resolution }>(t, ANSWER, {
        pendingId,
        answers: [
          { questionId: 'q2', customText: '  tomorrow \n' },
          { questionId: 'db', selectedOptions: ['sqlite', 'pg', 'sqlite'] },
        ],
      });
      expect(result.status).toBe(200);
      expect(result.body).toEqual({
        data: {
          answerQuestion: {
            claimed: true,
            status: 'answered',
            response: {
              answers: [
                { questionId: 'db', selectedOptions: ['pg', 'sqlite'], customText: '' },
                { questionId: 'q2', selectedOptions: [], customText: 'tomorrow' },
              ],
              rejected: false,
              rejectReason: '',
            },
          },
        },
      });
      const rows = await bundleRows(t, pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
      expect(rows.map((row) => row.metadata.response)).toEqual([
        { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: '' },
        { question_id: 'q2', selected_options: [], custom_text: 'tomorrow' },
      ]);
      expect(await resumes(t, pendingId)).toEqual({ prompts: 1, turns: 1 });
    });

    it('R2/R2b: a later answer or rejection gets claimed:false with the winner’s payload, writes nothing, resumes nothing', async () => {
      const { pendingId } = await freshBundle(t);
      const won = await gqlData<{ answerQuestion: Resolution }>(t, ANSWER, { pendingId, answers: CANONICAL });
      expect(won.answerQuestion.claimed).toBe(true);
      const before = await bundleRows(t, pendingId);

      const again = await gqlData<{ answerQuestion: Resolution }>(t, ANSWER, {
        pendingId,
        answers: [
          { questionId: 'db', selectedOptions: ['sqlite'] },
          { questionId: 'q2', customText: 'never' },
        ],
      });
      expect(again.answerQuestion).toEqual({ ...won.answerQuestion, claimed: false });
      const rejected = await gqlData<{ rejectQuestion: Resolution }>(t, REJECT, { pendingId, reason: 'too late' });
      expect(rejected.rejectQuestion).toEqual({ ...won.answerQuestion, claimed: false });

      expect(await bundleRows(t, pendingId)).toEqual(before);
      expect(await resumes(t, pendingId)).toEqual({ prompts: 1, turns: 1 });
    });

    it('R9/R2b: rejectQuestion claims as rejected with the trimmed reason; a loser’s replay has answers [] and rejectReason ""', async () => {
      const { pendingId } = await freshBundle(t);
      const won = await gqlData<{ rejectQuestion: Resolution }>(t, REJECT, { pendingId, reason: '  not my call ' });
      expect(won.rejectQuestion).toEqual({ claimed: true, status: 'rejected', response: { answers: [], rejected: true, rejectReason: 'not my call' } });
      const rows = await bundleRows(t, pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
      expect(rows.map((row) => 'response' in row.metadata)).toEqual([false, false]);
      expect(await resumes(t, pendingId)).toEqual({ prompts: 0, turns: 0 });

      const loser = await gqlData<{ answerQuestion: Resolution }>(t, ANSWER, { pendingId, answers: CANONICAL });
      expect(loser.answerQuestion).toEqual({ claimed: false, status: 'rejected', response: { answers: [], rejected: true, rejectReason: '' } });
      // A reason is optional.
      const other = await freshBundle(t);
      const bare = await gqlData<{ rejectQuestion: Resolution }>(t, REJECT, { pendingId: other.pendingId });
      expect(bare.rejectQuestion.response).toEqual({ answers: [], rejected: true, rejectReason: '' });
    });

    it('validation (N6–N8b, L16) is VALIDATION_ERROR naming the field, runs before the claim and the loser branch, and writes nothing', async () => {
      const { pendingId } = await freshBundle(t);
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        [ANSWER, { pendingId, answers: [{ questionId: 'db', selectedOptions: ['pg'] }] }, /answers/],
        [ANSWER, { pendingId, answers: [] }, /answers/],
        [ANSWER, { pendingId, answers: [{ questionId: 'db' }, { questionId: 'nope' }] }, /question_id/],
        [ANSWER, { pendingId, answers: [{ questionId: 'db' }, { questionId: 'db' }] }, /question_id/],
        [ANSWER, { pendingId, answers: [{ questionId: '' }, { questionId: 'q2' }] }, /question_id/],
        [ANSWER, { pendingId, answers: [{ questionId: 'db', selectedOptions: ['mysql'] }, { questionId: 'q2' }] }, /selected_options/],
        [ANSWER, { pendingId, answers: [{ questionId: 'db', customText: RUNES_2001 }, { questionId: 'q2' }] }, /custom_text/],
        [REJECT, { pendingId, reason: RUNES_2001 }, /reason/],
      ];
      const check = async () => {
        for (const [document, variables, field] of cases) {
          const before = await bundleRows(t, pendingId);
          const result = await gql(t, document, variables);
          expect(result.status).toBe(200);
          const message = expectCodedError(result, 'VALIDATION_ERROR', document === ANSWER ? 'answerQuestion' : 'rejectQuestion');
          expect(message).toMatch(field);
          expect(await bundleRows(t, pendingId)).toEqual(before);
        }
      };
      await check();
      expect((await bundleRows(t, pendingId)).map((row) => row.metadata.status)).toEqual(['pending', 'pending']);

      // N8b boundary: exactly 2000 runes is accepted.
      const boundary = await freshBundle(t);
      const ok = await gqlData<{ rejectQuestion: Resolution }>(t, REJECT, { pendingId: boundary.pendingId, reason: RUNES_2000 });
      expect(ok.rejectQuestion.response.rejectReason).toBe(RUNES_2000);

      // R2c: against a resolved bundle the same submissions get the same errors, never the winner's payload.
      await gqlData(t, ANSWER, { pendingId, answers: CANONICAL });
      await check();
    });

    it('L16: a bundle with a question lacking question_id is VALIDATION_ERROR (not INTERNAL), before the claim', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId);
      await t.db.query(
        `UPDATE task_session_messages SET metadata = metadata - 'question_id' WHERE metadata->>'pending_id' = $1 AND metadata->>'question_index' = '1'`,
        [pendingId],
      );
      const before = await bundleRows(t, pendingId);
      for (const [document, variables, field] of [
        [ANSWER, { pendingId, answers: [{ questionId: 'db' }, { questionId: 'q2' }] }, 'answerQuestion'],
        [REJECT, { pendingId }, 'rejectQuestion'],
      ] as const) {
        const message = expectCodedError(await gql(t, document, variables), 'VALIDATION_ERROR', field);
        expect(message).toMatch(/question_id/);
      }
      expect(await bundleRows(t, pendingId)).toEqual(before);
    });

    it('NOT_FOUND for an unknown pending id (answer and reject)', async () => {
      for (const [document, variables, field] of [
        [ANSWER, { pendingId: 'no-such-bundle', answers: CANONICAL }, 'answerQuestion'],
        [REJECT, { pendingId: 'no-such-bundle' }, 'rejectQuestion'],
      ] as const) {
        const result = await gql(t, document, variables);
        expect(result.status).toBe(200);
        expect(expectCodedError(result, 'NOT_FOUND', field)).toBe(NOT_FOUND);
      }
    });

    it('CONFLICT for a bundle that is no longer active with no winner: superseded, cancelled, expired', async () => {
      const superseded = await freshBundle(t);
      await request(t.baseUrl).post(`/api/v1/sessions/${superseded.fixture.sessionId}/turns`).expect(201);
      const cancelled = await freshBundle(t);
      await request(t.baseUrl).post(`/api/v1/clarification/${cancelled.pendingId}/cancel`).expect(200);
      const expired = await freshBundle(t);
      await request(t.baseUrl).patch(`/api/v1/sessions/${expired.fixture.sessionId}`).send({ state: 'COMPLETED' }).expect(200);

      for (const { pendingId } of [superseded, cancelled, expired]) {
        const before = await bundleRows(t, pendingId);
        const answer = await gql(t, ANSWER, { pendingId, answers: CANONICAL });
        expect(answer.status).toBe(200);
        expect(expectCodedError(answer, 'CONFLICT', 'answerQuestion')).toBe(NOT_ACTIVE);
        expect(expectCodedError(await gql(t, REJECT, { pendingId }), 'CONFLICT', 'rejectQuestion')).toBe(NOT_ACTIVE);
        expect(await bundleRows(t, pendingId)).toEqual(before);
      }
    });

    it('INTERNAL when the winner’s resume is refused (R7a): the claim is rolled back and a retry wins', async () => {
      let accept = false;
      const posts: unknown[] = [];
      const server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          posts.push(JSON.parse(body));
          res.writeHead(accept ? 200 : 503).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as AddressInfo).port;
        const { pendingId } = await freshBundle(t, { resumeUrl: `http://127.0.0.1:${port}/resume` });
        const refused = await gql(t, ANSWER, { pendingId, answers: CANONICAL });
        expect(refused.status).toBe(200);
        expectCodedError(refused, 'INTERNAL_ERROR', 'answerQuestion');
        expect((await bundleRows(t, pendingId)).map((row) => row.metadata.status)).toEqual(['pending', 'pending']);

        accept = true;
        const retried = await gqlData<{ answerQuestion: Resolution }>(t, ANSWER, { pendingId, answers: CANONICAL });
        expect(retried.answerQuestion).toEqual({ claimed: true, status: 'answered', response: { answers: CANONICAL, rejected: false, rejectReason: '' } });
        expect(posts).toHaveLength(2);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('GraphQL with AUTH_MODE=enabled', () => {
  let t: TestApp;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };
  let aliceFixture: SessionFixture;
  let alicePending: string;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    alice = await createUser(t, 'alice');
    bob = await createUser(t, 'bob');
    aliceFixture = await createRunningSession(t, { bearer: alice.token });
    alicePending = await ask(t, aliceFixture.sessionId, alice.token);
  });
  afterAll(async () => {
    await t.close();
  });

  const operations: Array<[string, string, Record<string, unknown> | undefined]> = [
    ['workspaces', WORKSPACES, undefined],
    ['tasks', TASKS, {}],
    ['pendingQuestions', PENDING, {}],
    ['question', QUESTION, { pendingId: 'anything' }],
    ['answerQuestion', ANSWER, { pendingId: 'anything', answers: CANONICAL }],
    ['rejectQuestion', REJECT, { pendingId: 'anything' }],
  ];

  it.each(operations)('%s without an identity (or with a bad token) ⇒ HTTP 401, WWW-Authenticate: Bearer, UNAUTHENTICATED', async (_name, document, variables) => {
    for (const bearer of [undefined, 'not-a-token', 'parley_pat_revokedOrUnknown0000000000000000000000000']) {
      const result = await gql(t, document, variables, bearer);
      expect(result.status).toBe(401);
      expect(result.headers['www-authenticate']).toMatch(/^Bearer\b/);
      expect(result.body.data ?? null).toBeNull();
      expect(result.body.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    }
    // Nothing was answered.
    expect((await bundleRows(t, alicePending)).map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
  });

  it('a bearer token and the parley_session cookie both identify the caller', async () => {
    const viaBearer = await gql<{ workspaces: Array<{ id: string }> }>(t, WORKSPACES, undefined, alice.token);
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body.data?.workspaces.map((workspace) => workspace.id)).toContain(aliceFixture.workspaceId);
    const viaCookie = await gql<{ workspaces: Array<{ id: string }> }>(t, WORKSPACES, undefined, undefined, {
      headers: browserHeaders(t, await signIn(t, alice.token)),
    });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body).toEqual(viaBearer.body);
  });

  it('a scoped caller sees only its own (and unowned) workspaces, tasks and pending questions', async () => {
    const bobFixture = await createRunningSession(t, { bearer: bob.token });
    const bobPending = await ask(t, bobFixture.sessionId, bob.token);

    const aliceView = {
      workspaces: (await gqlData<{ workspaces: Array<{ id: string }> }>(t, WORKSPACES, undefined, alice.token)).workspaces.map((w) => w.id),
      tasks: (await gqlData<{ tasks: Task[] }>(t, TASKS, {}, alice.token)).tasks.map((task) => task.id),
      pending: (await gqlData<{ pendingQuestions: Connection }>(t, PENDING, {}, alice.token)).pendingQuestions.nodes.map((b) => b.pendingId),
    };
    expect(aliceView.workspaces).toContain(aliceFixture.workspaceId);
    expect(aliceView.workspaces).not.toContain(bobFixture.workspaceId);
    expect(aliceView.tasks).toContain(aliceFixture.taskId);
    expect(aliceView.tasks).not.toContain(bobFixture.taskId);
    expect(aliceView.pending).toContain(alicePending);
    expect(aliceView.pending).not.toContain(bobPending);
    // A foreign workspace filter is an empty result, not an error.
    expect((await gqlData<{ tasks: Task[] }>(t, TASKS, { workspaceId: bobFixture.workspaceId }, alice.token)).tasks).toEqual([]);
    expect(
      (await gqlData<{ pendingQuestions: Connection }>(t, PENDING, { workspaceId: bobFixture.workspaceId }, alice.token)).pendingQuestions,
    ).toEqual({ nodes: [], count: 0, pageInfo: { hasNextPage: false, endCursor: '' } });
    // The admin token sees both.
    const adminPending = (await gqlData<{ pendingQuestions: Connection }>(t, PENDING, {}, TEST_ADMIN_TOKEN)).pendingQuestions.nodes;
    expect(adminPending.map((bundle) => bundle.pendingId)).toEqual(expect.arrayContaining([alicePending, bobPending]));
  });

  it('A3/N5: a foreign pending id is indistinguishable from a missing one (question, answer, reject) and nothing is written', async () => {
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const pendingId = await ask(t, fixture.sessionId, alice.token);
    const before = await bundleRows(t, pendingId);
    for (const [document, field] of [
      [QUESTION, 'question'],
      [ANSWER, 'answerQuestion'],
      [REJECT, 'rejectQuestion'],
    ] as const) {
      const variables = (id: string) => (document === ANSWER ? { pendingId: id, answers: CANONICAL } : { pendingId: id });
      const foreign = await gql(t, document, variables(pendingId), bob.token);
      const missing = await gql(t, document, variables('00000000-0000-4000-8000-000000000000'), bob.token);
      expect(foreign.status).toBe(200);
      expect(expectCodedError(foreign, 'NOT_FOUND', field)).toBe(NOT_FOUND);
      expect(foreign.body).toEqual(missing.body);
      expect(JSON.stringify(foreign.body)).not.toMatch(/Which database|PostgreSQL|Deploy now/);
    }
    expect(await bundleRows(t, pendingId)).toEqual(before);
    // Its owner can still answer it.
    const won = await gqlData<{ answerQuestion: Resolution }>(t, ANSWER, { pendingId, answers: CANONICAL }, alice.token);
    expect(won.answerQuestion.claimed).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the committed SDL, limits and GraphiQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('schema.graphql is exactly what the resolvers build (run `npm run schema:write` when this fails) and what the server serves', async () => {
    const committed = await readFile(new URL('../../../schema.graphql', import.meta.url), 'utf8');
    expect(await buildSchemaSdl()).toBe(committed);
    const served = (t.app.getHttpAdapter().getInstance() as unknown as { graphql: { schema: GraphQLSchema } }).graphql.schema;
    expect(printSortedSchema(served)).toBe(committed);
  });

  it('an unparseable or invalid request to /graphql gets GraphQL errors ({data:null, errors}); REST keeps its {error} bodies', async () => {
    for (const [document, variables, message] of [
      ['{ noSuchField }', undefined, /Cannot query field "noSuchField"/],
      ['{ workspaces { id ', undefined, /Syntax Error/],
      ['query($p: String!) { question(pendingId: $p) { pendingId } }', { p: 5 }, /\$p/],
      ['query($p: String!) { question(pendingId: $p) { pendingId } }', {}, /\$p/],
    ] as const) {
      const result = await gql(t, document, variables);
      expect(result.status).toBe(400);
      expect(result.body.data ?? null).toBeNull();
      expect(result.body.errors?.map((error) => error.message)).toEqual([expect.stringMatching(message)]);
    }
    const badJson = await request(t.baseUrl).post('/graphql').set('content-type', 'application/json').send('{"query": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body).toEqual({ data: null, errors: [{ message: expect.stringMatching(/JSON/), extensions: { code: 'VALIDATION_ERROR' } }] });
    // The REST surface beside it is unchanged.
    const rest = await request(t.baseUrl).post('/api/v1/clarification/x/respond').set('content-type', 'application/json').send('{"answers": ');
    expect(rest.status).toBe(400);
    expect(Object.keys(rest.body as object)).toEqual(['error', 'code']);
  });

  it('query depth 10 is accepted, 11 is refused', async () => {
    const deep = (depth: number) => `{ __schema { types { ${'ofType { '.repeat(depth - 3)}name${' }'.repeat(depth - 3)} } } }`;
    const ten = await gql(t, deep(10));
    expect(ten.status).toBe(200);
    expect(ten.body.errors).toBeUndefined();
    const eleven = await gql(t, deep(11));
    expect(eleven.status).toBe(400);
    expect(eleven.body.data ?? null).toBeNull();
    expect(eleven.body.errors?.[0]?.message).toMatch(/depth/);
    // The natural depth of the real schema is well inside the limit.
    expect((await gql(t, PENDING)).body.errors).toBeUndefined();
  });

  it('500 selected fields are accepted, 501 refused — whether written out, aliased or spread through fragments', async () => {
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const expectAccepted = async (document: string) => {
      const result = await gql(t, document);
      expect(result.body.errors).toBeUndefined();
      expect(result.status).toBe(200);
    };
    const expectRefused = async (document: string) => {
      const result = await gql(t, document);
      expect(result.status).toBe(400);
      expect(result.body.data ?? null).toBeNull();
      expect(result.body.errors?.map((error) => error.message)).toEqual([expect.stringMatching(/more than 500 fields/)]);
    };
    await expectAccepted(aliased(500));
    await expectRefused(aliased(501));

    // Ten spreads of a 49-field fragment under ten aliased fields: 10 × (1 + 49) = 500 selected fields.
    const fragment = `fragment W on Workspace { ${Array.from({ length: 49 }, (_, i) => `f${i}: id`).join(' ')} }`;
    const spread = (extra: string) =>
      `query { ${Array.from({ length: 10 }, (_, i) => `w${i}: workspaces { ...W }`).join(' ')} ${extra} } ${fragment}`;
    await expectAccepted(spread(''));
    await expectRefused(spread('__typename'));
    // Nested fragments multiply: 60 spreads of a 40-field fragment select 2460 fields.
    const wide = `query { ${Array.from({ length: 60 }, (_, i) => `w${i}: workspaces { ...X }`).join(' ')} }
      fragment X on Workspace { ...Y ${Array.from({ length: 20 }, (_, i) => `g${i}: name`).join(' ')} }
      fragment Y on Workspace { ${Array.from({ length: 20 }, (_, i) => `h${i}: id`).join(' ')} }`;
    await expectRefused(wide);
    // Inline fragments count what they select.
    await expectRefused(`{ ... on Query { ${Array.from({ length: 501 }, (_, i) => `i${i}: __typename`).join(' ')} } }`);
  });

  it('subscriptions get the same document validation and field limit as queries', async () => {
    const tooMany = `subscription { questionEvents { ${Array.from({ length: 501 }, (_, i) => `a${i}: id`).join(' ')} } }`;
    const unknownField = `subscription { questionEvents { id noSuchField } }`;
    for (const [document, message] of [
      [tooMany, /more than 500 fields/],
      [unknownField, /noSuchField/],
    ] as const) {
      const subscription = subscribe(t, document);
      try {
        const error = await subscription.waitForError(5000);
        expect(graphqlErrorsOf(error).map((e) => e.message)).toEqual([expect.stringMatching(message)]);
      } finally {
        await subscription.close();
      }
    }
    // A valid subscription document passes the same checks.
    await openStreams(t, 0);
    const fine = subscribe<{ questionEvents: { type: string; pendingId: string } }>(
      t,
      `subscription { questionEvents { type pendingId response { answers { questionId } } } }`,
    );
    try {
      await openStreams(t, 1);
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId);
      expect(await fine.waitFor(1)).toEqual([{ questionEvents: { type: 'ASKED', pendingId, response: null } }]);
      expect(fine.error).toBeUndefined();
    } finally {
      await fine.close();
    }
  });

  it('GraphiQL (auth disabled ⇒ on by default) is served with its assets from the installed packages, no CDN', async () => {
    const page = await request(t.baseUrl).get('/graphiql').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const html = page.text;
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>/);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets).toEqual([
      '/graphiql/assets/graphiql.min.css',
      '/graphiql/assets/react.production.min.js',
      '/graphiql/assets/react-dom.production.min.js',
      '/graphiql/assets/graphiql.min.js',
      '/graphiql/assets/init.js',
    ]);
    for (const asset of assets) {
      const res = await request(t.baseUrl).get(asset).buffer(true).parse((response, done) => {
        let length = 0;
        response.on('data', (chunk: Buffer) => (length += chunk.length));
        response.on('end', () => done(null, length));
      });
      expect({ asset, status: res.status, type: res.headers['content-type'] }).toEqual({
        asset,
        status: 200,
        type: asset.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      });
      expect(res.body).toBeGreaterThan(100);
    }
    expect((await request(t.baseUrl).get('/graphiql/assets/package.json')).status).toBe(404);
    expect((await request(t.baseUrl).get('/graphiql/assets/..%2F..%2Fpackage.json')).status).toBe(404);
  });

  it.each([
    { label: 'auth enabled, GRAPHIQL unset ⇒ off', env: { AUTH_MODE: 'enabled' }, served: false },
    { label: 'auth enabled, GRAPHIQL=true ⇒ on', env: { AUTH_MODE: 'enabled', GRAPHIQL: 'true' }, served: true },
    { label: 'auth disabled, GRAPHIQL=false ⇒ off', env: { GRAPHIQL: 'false' }, served: false },
  ])('GraphiQL follows the configuration: $label', async ({ env, served }) => {
    const configured = loadConfig(env);
    const other = await startApp({ config: { authMode: configured.authMode, graphql: configured.graphql } });
    try {
      expect((await request(other.baseUrl).get('/graphiql')).status).toBe(served ? 200 : 404);
      expect((await request(other.baseUrl).get('/graphiql/assets/graphiql.min.css')).status).toBe(served ? 200 : 404);
      // The API itself is served either way.
      expect((await gql(other, WORKSPACES, undefined, configured.authMode === 'enabled' ? TEST_ADMIN_TOKEN : undefined)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * Counts the SQL statements the application's own pool runs: every client the TypeORM pool hands
 * out gets its `query` wrapped (once), and TypeORM's logger is wrapped as a second, independent
 * witness. The question-event poller (a background timer) is excluded by its text.
 */
describe.each(['disabled', 'enabled'] as const)('tasks: a constant number of SQL queries per page (AUTH_MODE=%s)', (mode) => {
  let t: TestApp;
  let bearer: string | undefined;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: mode } });
    bearer = mode === 'enabled' ? (await createUser(t, 'counter')).token : undefined;
    const first = await createRunningSession(t, bearer ? { bearer } : {});
    workspaceId = first.workspaceId;
  });
  afterAll(async () => {
    await t.close();
  });

  /** A task in the workspace with a RUNNING session, blocked on a question when `blocked`; a second session on every third. */
  async function addTask(index: number): Promise<void> {
    const auth = (req: request.Test) => (bearer ? req.set('authorization', `Bearer ${bearer}`) : req);
    const task = await auth(request(t.baseUrl).post('/api/v1/tasks')).send({ title: `task ${index}`, workspace_id: workspaceId }).expect(201);
    const session = await auth(request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`)).send({}).expect(201);
    await auth(request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id}`)).send({ state: 'RUNNING' }).expect(200);
    await auth(request(t.baseUrl).post(`/api/v1/sessions/${session.body.id}/turns`)).expect(201);
    if (index % 2 === 0) await ask(t, session.body.id as string, bearer);
    if (index % 3 === 0) {
      const second = await auth(request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`)).send({}).expect(201);
      await auth(request(t.baseUrl).patch(`/api/v1/sessions/${second.body.id}`)).send({ state: 'RUNNING' }).expect(200);
    }
  }

  it('the same count for 2 and for 20 tasks with pending actions (both counters agree)', async () => {
    const counter = captureStatements(t);
    try {
      for (let index = 0; index < 1; index += 1) await addTask(index);
      const small = await counter.during(() => gqlData<{ tasks: Task[] }>(t, TASKS, { workspaceId }, bearer));
      expect(small.result.tasks).toHaveLength(2);
      expect(small.result.tasks.some((task) => task.taskPendingAction === 'clarification')).toBe(true);

      for (let index = 1; index < 19; index += 1) await addTask(index);
      const large = await counter.during(() => gqlData<{ tasks: Task[] }>(t, TASKS, { workspaceId }, bearer));
      expect(large.result.tasks).toHaveLength(20);
      expect(large.result.tasks.filter((task) => task.taskPendingAction === 'clarification')).toHaveLength(10);
      expect(large.result.tasks.filter((task) => task.primarySessionPendingAction === 'clarification').length).toBeGreaterThan(0);

      // The counters work (they saw the task query) and agree with each other.
      expect(small.pool.some((sql) => /FROM "?tasks"?/i.test(sql))).toBe(true);
      expect(small.logger).toEqual(small.pool);
      expect(large.logger).toEqual(large.pool);
      expect(large.pool.length).toBe(small.pool.length);
      // One statement reads the whole page; the rest is identity/visibility (scoped callers only).
      expect(large.pool.filter((sql) => /FROM "?tasks"?/i.test(sql))).toHaveLength(1);
      if (mode === 'disabled') expect(large.pool).toHaveLength(1);
      else expect(large.pool.length).toBeLessThanOrEqual(3);
    } finally {
      counter.restore();
    }
  });
});
