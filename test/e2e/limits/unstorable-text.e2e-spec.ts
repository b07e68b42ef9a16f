/**
 * NUL and lone UTF-16 surrogates are refused with a 400
 * naming the field on every surface — REST bodies, params and query strings, GraphQL variables and
 * inline literals, MCP tool arguments — before anything is written; never a 500, never U+FFFD.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';
import { gql, graphqlErrorsOf, subscribe } from '../../support/graphql.js';
import { rawToolCall } from '../../support/mcp.js';

const NUL = 'a\u0000b';
const HIGH = 'x\ud800';
const LOW = '\udc00y';
const NUL_REASON = 'contains a NUL character (\\u0000), which cannot be stored';
const SURROGATE_REASON = 'contains an unpaired UTF-16 surrogate, which cannot be stored';

describe('text PostgreSQL cannot store is refused on every surface', () => {
  let t: TestApp;
  let session: SessionFixture;
  let pendingId: string;

  const api = () => request(t.baseUrl);

  /** Every table a refused request could have written to. */
  const snapshot = async () => {
    const { rows } = await t.db.query<{ snapshot: string }>(
      `SELECT json_build_array(
         (SELECT count(*) FROM workspaces), (SELECT count(*) FROM tasks), (SELECT count(*) FROM task_sessions),
         (SELECT count(*) FROM task_session_turns), (SELECT count(*) FROM task_session_messages), (SELECT count(*) FROM question_events),
         (SELECT count(*) FROM users), (SELECT count(*) FROM access_tokens),
         (SELECT string_agg(metadata->>'status', ',' ORDER BY id) FROM task_session_messages),
         (SELECT string_agg(state || coalesce(archived_at::text, ''), ',' ORDER BY id) FROM tasks)
       )::text AS snapshot`,
    );
    return rows[0]?.snapshot;
  };

  beforeAll(async () => {
    t = await startApp();
    session = await createRunningSession(t);
    const asked = await api().post('/api/v1/clarification/request').send({ session_id: session.sessionId, questions: TWO_QUESTIONS }).expect(200);
    pendingId = (asked.body as { pending_id: string }).pending_id;
  });
  afterAll(async () => {
    await t.close();
  });

  describe('REST bodies', () => {
    const cases: Array<[string, () => [string, object], string]> = [
      ['workspace name (NUL)', () => ['/api/v1/workspaces', { name: NUL }], `body.name ${NUL_REASON}`],
      ['workspace name (lone surrogate, once stored as U+FFFD)', () => ['/api/v1/workspaces', { name: HIGH }], `body.name ${SURROGATE_REASON}`],
      ['task title', () => ['/api/v1/tasks', { title: LOW }], `body.title ${SURROGATE_REASON}`],
      ['resume_url', () => [`/api/v1/tasks/${session.taskId}/sessions`, { resume_url: `http://hook.example/${NUL}` }], `body.resume_url ${NUL_REASON}`],
      ['admin user name', () => ['/api/v1/admin/users', { name: NUL }], `body.name ${NUL_REASON}`],
      ['ask: prompt', () => ['/api/v1/clarification/request', { session_id: session.sessionId, questions: [{ prompt: NUL, options: [{ label: 'a' }, { label: 'b' }] }] }], `body.questions[0].prompt ${NUL_REASON}`],
      ['ask: label', () => ['/api/v1/clarification/request', { session_id: session.sessionId, questions: [{ prompt: 'p', options: [{ label: 'a' }, { label: HIGH }] }] }], `body.questions[0].options[1].label ${SURROGATE_REASON}`],
      ['ask: context', () => ['/api/v1/clarification/request', { session_id: session.sessionId, questions: TWO_QUESTIONS, context: NUL }], `body.context ${NUL_REASON}`],
      ['ask: question id', () => ['/api/v1/clarification/request', { session_id: session.sessionId, questions: [{ id: NUL, prompt: 'p', options: [{ label: 'a' }, { label: 'b' }] }] }], `body.questions[0].id ${NUL_REASON}`],
      ['ask: session_id', () => ['/api/v1/clarification/request', { session_id: NUL, questions: TWO_QUESTIONS }], `body.session_id ${NUL_REASON}`],
      ['answer: custom_text', () => [`/api/v1/clarification/${pendingId}/respond`, { answers: [{ question_id: 'db', custom_text: NUL }, { question_id: 'q2' }] }], `body.answers[0].custom_text ${NUL_REASON}`],
      ['answer: question_id', () => [`/api/v1/clarification/${pendingId}/respond`, { answers: [{ question_id: LOW }] }], `body.answers[0].question_id ${SURROGATE_REASON}`],
      ['reject_reason (once claimed without its REJECTED event)', () => [`/api/v1/clarification/${pendingId}/respond`, { rejected: true, reject_reason: NUL }], `body.reject_reason ${NUL_REASON}`],
      ['field name', () => ['/api/v1/workspaces', { name: 'ok', [NUL]: 1 }], `body has a field name that ${NUL_REASON}`],
    ];

    it.each(cases)('%s ⇒ 400 naming the field, nothing written', async (_label, build, error) => {
      const [path, body] = build();
      const before = await snapshot();
      const res = await api().post(path).send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error, code: 'VALIDATION_ERROR' });
      expect(await snapshot()).toBe(before);
    });

    it('the bundle is still pending and answerable after every refused answer', async () => {
      const res = await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ rejected: true, reject_reason: 'fine' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ claimed: true, status: 'rejected' });
      const types = async () =>
        (await t.db.query<{ type: string }>(`SELECT type FROM question_events WHERE pending_id = $1 ORDER BY id`, [pendingId])).rows.map((row) => row.type);
      await eventually(async () => ((await types()).length === 2 ? true : undefined), 5000, 'the REJECTED event');
      expect(await types()).toEqual(['ASKED', 'REJECTED']);
    });
  });

  describe('REST params and query strings', () => {
    it.each([
      ['get', '/api/v1/tasks/%00', 'params.id'],
      ['post', '/api/v1/tasks/a%00b/archive', 'params.id'],
      ['get', '/api/v1/sessions/%00', 'params.id'],
      ['patch', '/api/v1/sessions/%00', 'params.id'],
      ['post', '/api/v1/sessions/%00/turns', 'params.id'],
      ['get', '/api/v1/sessions/%00/messages', 'params.id'],
      ['get', '/api/v1/clarification/%00', 'params.id'],
      ['get', '/api/v1/clarification/%00/wait', 'params.id'],
      ['post', '/api/v1/clarification/%00/respond', 'params.id'],
      ['post', '/api/v1/clarification/%00/cancel', 'params.id'],
      ['get', '/api/v1/tasks?workspace_id=%00', 'query.workspace_id'],
      ['get', `/api/v1/sessions/SESSION/messages?cursor=%00`, 'query.cursor'],
    ] as const)('%s %s ⇒ 400 naming %s, nothing written', async (method, template, field) => {
      const before = await snapshot();
      const res = await api()[method](template.replace('SESSION', session.sessionId)).set('content-type', 'application/json').send(method === 'get' ? undefined : {});
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: `${field} ${NUL_REASON}`, code: 'VALIDATION_ERROR' });
      expect(await snapshot()).toBe(before);
    });

    it('an id that is not even UTF-8 (a percent-encoded lone surrogate) is a 4xx, never a 500', async () => {
      for (const path of ['/api/v1/tasks/%ED%A0%80', '/api/v1/clarification/%ED%A0%80', '/api/v1/sessions/%ED%A0%80/messages']) {
        const res = await api().get(path);
        expect({ path, client: res.status >= 400 && res.status < 500 }).toEqual({ path, client: true });
      }
      // An undecodable query value is kept as the literal text it is: a workspace id like any other.
      await api().get('/api/v1/tasks?workspace_id=%ED%A0%80').expect(200, { tasks: [], next_cursor: '' });
    });
  });

  describe('GraphQL', () => {
    const QUESTION = 'query($p: String!) { question(pendingId: $p) { pendingId } }';

    it('variables ⇒ 400 VALIDATION_ERROR naming the variable', async () => {
      const res = await gql(t, 'mutation($p: String!, $r: String) { rejectQuestion(pendingId: $p, reason: $r) { claimed } }', { p: 'x', r: NUL });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ data: null, errors: [{ message: `body.variables.r ${NUL_REASON}`, extensions: { code: 'VALIDATION_ERROR' } }] });
    });

    it.each([
      ['{ question(pendingId: "\\u0000") { pendingId } }', `argument pendingId ${NUL_REASON}`],
      ['mutation { rejectQuestion(pendingId: "p", reason: "x\\u0000") { claimed } }', `argument reason ${NUL_REASON}`],
      ['mutation { answerQuestion(pendingId: "p", answers: [{questionId: "q1"}, {questionId: "q2", customText: "a\\u0000"}]) { claimed } }', `argument answers[1].customText ${NUL_REASON}`],
      ['query($p: String = "\\u0000") { question(pendingId: $p) { pendingId } }', `default of $p ${NUL_REASON}`],
    ])('inline literal %s ⇒ 400 VALIDATION_ERROR naming the argument', async (document, message) => {
      const before = await snapshot();
      const res = await gql(t, document);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ message, extensions: { code: 'VALIDATION_ERROR' } })]);
      expect(await snapshot()).toBe(before);
    });

    it('an inline lone surrogate escape is a syntax error (graphql-js refuses it), 400 before anything runs', async () => {
      const before = await snapshot();
      const res = await gql(t, 'mutation { rejectQuestion(pendingId: "p", reason: "\\ud800") { claimed } }');
      expect(res.status).toBe(400);
      expect(res.body.errors?.map((error) => error.message)).toEqual([expect.stringMatching(/^Syntax Error: Invalid Unicode escape sequence/)]);
      expect(await snapshot()).toBe(before);
    });

    it('variables of a GET request ⇒ 400 naming the variable', async () => {
      const res = await api().get('/graphql').query({ query: QUESTION, variables: JSON.stringify({ p: HIGH }) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ data: null, errors: [{ message: `variables.p ${SURROGATE_REASON}`, extensions: { code: 'VALIDATION_ERROR' } }] });
    });
  });

  describe('GraphQL over WebSocket', () => {
    it('subscription variables ⇒ VALIDATION_ERROR naming the argument', async () => {
      const sub = subscribe(t, 'subscription($w: String) { questionEvents(workspaceId: $w) { id } }', { variables: { w: NUL } });
      try {
        const errors = graphqlErrorsOf(await sub.waitForError());
        expect(errors).toEqual([expect.objectContaining({ message: `workspaceId ${NUL_REASON}`, extensions: { code: 'VALIDATION_ERROR' } })]);
      } finally {
        await sub.close();
      }
    });
  });

  describe('MCP tool arguments', () => {
    it.each([
      ['/mcp', 'answer_question_kandev', () => ({ pending_id: pendingId, rejected: true, reason: NUL }), `body.params.arguments.reason ${NUL_REASON}`],
      ['/mcp', 'list_pending_questions_kandev', () => ({ workspace_id: HIGH }), `body.params.arguments.workspace_id ${SURROGATE_REASON}`],
      ['/mcp', 'list_tasks_kandev', () => ({ workspace_id: NUL }), `body.params.arguments.workspace_id ${NUL_REASON}`],
      ['/mcp/session', 'ask_user_question_kandev', () => ({ questions: [{ prompt: NUL, options: [{ label: 'a' }, { label: 'b' }] }] }), `body.params.arguments.questions[0].prompt ${NUL_REASON}`],
      ['/mcp/session', 'ask_user_question_kandev', () => ({ questions: TWO_QUESTIONS, context: LOW }), `body.params.arguments.context ${SURROGATE_REASON}`],
    ] as const)('%s %s ⇒ HTTP 400 with a JSON-RPC error naming the argument, nothing written', async (path, tool, args, message) => {
      const before = await snapshot();
      const res = await rawToolCall(t.baseUrl, path, path === '/mcp' ? 'unused-auth-disabled' : session.agentToken, tool, args());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ jsonrpc: '2.0', error: { code: -32602, message }, id: null });
      expect(await snapshot()).toBe(before);
    });
  });
});
