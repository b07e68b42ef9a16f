/**
 * Property-based: arbitrary text — with NUL, lone surrogates and any other code point —
 * in every surface's inputs (REST bodies and params, GraphQL variables and literals, MCP tool
 * arguments) never gets a 5xx; a refusal writes nothing and names the field; text that is accepted
 * is stored exactly as sent (never as U+FFFD). Bounded: a few dozen requests per property.
 */
import fc from 'fast-check';
import request from 'supertest';
import { unstorableTextReason } from '#common';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createRunningSession, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql } from '../../support/graphql.js';
import { rawToolCall } from '../../support/mcp.js';

const RUNS = { numRuns: 30 };

/** Any code point, plus NUL and lone surrogates often enough to matter. */
const text = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
      { weight: 1, arbitrary: fc.constant('\u0000') },
      { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
    ),
    { maxLength: 16 },
  )
  .map((parts) => parts.join(''));

const unstorable = (value: string) => unstorableTextReason(value) !== undefined;

/** Percent-encodes every UTF-16 unit, lone surrogates as the (invalid) UTF-8 bytes a hostile client sends. */
function encodePathSegment(value: string): string {
  return value.replace(/[\s\S]/gu, (char) => {
    if (char.length === 2 || !/[\uD800-\uDFFF]/.test(char)) return encodeURIComponent(char);
    const unit = char.charCodeAt(0);
    return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
  });
}

/** A GraphQL string literal spelling every non-ASCII or control unit as a \\uXXXX escape. */
function graphqlString(value: string): string {
  let literal = '';
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    literal += unit >= 0x20 && unit < 0x7f && value[i] !== '"' && value[i] !== '\\' ? value[i] : `\\u${unit.toString(16).padStart(4, '0')}`;
  }
  return `"${literal}"`;
}

describe('hostile text on every surface (property-based)', () => {
  let t: TestApp;
  let session: SessionFixture;
  let pendingId: string;

  const snapshot = async () => {
    const { rows } = await t.db.query<{ snapshot: string }>(
      `SELECT json_build_array(
         (SELECT count(*) FROM workspaces), (SELECT count(*) FROM tasks), (SELECT count(*) FROM task_sessions),
         (SELECT count(*) FROM task_session_turns), (SELECT count(*) FROM task_session_messages), (SELECT count(*) FROM users),
         (SELECT string_agg(metadata->>'status', ',' ORDER BY id) FROM task_session_messages),
         (SELECT string_agg(state || coalesce(archived_at::text, ''), ',' ORDER BY id) FROM tasks)
       )::text AS snapshot`,
    );
    return rows[0]?.snapshot;
  };

  beforeAll(async () => {
    t = await startApp({ config: { askTimeoutMs: 20 } });
    session = await createRunningSession(t);
    const asked = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: session.sessionId, questions: TWO_QUESTIONS }).expect(200);
    pendingId = (asked.body as { pending_id: string }).pending_id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('REST bodies: a refusal is a 4xx naming the field and writes nothing; accepted text is stored exactly', async () => {
    const targets = [
      { path: () => '/api/v1/workspaces', body: (s: string) => ({ name: s }), field: 'name', table: 'workspaces', column: 'name' },
      { path: () => '/api/v1/tasks', body: (s: string) => ({ title: s }), field: 'title', table: 'tasks', column: 'title' },
      { path: () => '/api/v1/admin/users', body: (s: string) => ({ name: s }), field: 'name', table: 'users', column: 'name' },
      {
        path: () => '/api/v1/clarification/request',
        body: (s: string) => ({ session_id: session.sessionId, questions: [{ prompt: 'p', options: [{ label: 'a' }, { label: s }] }] }),
        field: 'questions[0].options[1].label',
      },
      { path: () => '/api/v1/clarification/request', body: (s: string) => ({ session_id: session.sessionId, questions: TWO_QUESTIONS, context: s }), field: 'context' },
      { path: () => `/api/v1/clarification/${pendingId}/respond`, body: (s: string) => ({ rejected: true, reject_reason: s }), field: 'reject_reason' },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), text, async (target, value) => {
        const before = await snapshot();
        const res = await request(t.baseUrl).post(target.path()).set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`).send(target.body(value));
        expect(res.status).toBeLessThan(500);
        if (unstorable(value)) {
          expect(res.status).toBe(400);
          expect((res.body as { error: string }).error).toBe(`body.${target.field} ${unstorableTextReason(value)}`);
        }
        if (res.status >= 400) {
          expect((res.body as { error: string }).error).toContain(target.field.replace(/^.*\./, ''));
          expect(await snapshot()).toBe(before);
        } else if (target.table) {
          const stored = await t.db.query(`SELECT ${target.column} AS value FROM ${target.table} WHERE id = $1`, [(res.body as { id: string }).id]);
          expect(stored.rows[0]?.value).toBe(value);
        }
      }),
      RUNS,
    );
  });

  it('REST params: any id (even one that is not UTF-8) is a 400 or 404, and writes nothing', async () => {
    const routes: Array<['get' | 'post' | 'patch', (id: string) => string, object?]> = [
      ['get', (id) => `/api/v1/tasks/${id}`],
      ['post', (id) => `/api/v1/tasks/${id}/archive`],
      ['patch', (id) => `/api/v1/sessions/${id}`, { state: 'RUNNING' }],
      ['post', (id) => `/api/v1/sessions/${id}/turns`],
      ['get', (id) => `/api/v1/sessions/${id}/messages`],
      ['get', (id) => `/api/v1/clarification/${id}`],
      ['post', (id) => `/api/v1/clarification/${id}/respond`, { rejected: true }],
      ['post', (id) => `/api/v1/clarification/${id}/cancel`],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), text, async ([method, route, body], value) => {
        fc.pre(value !== '' && value !== '.' && value !== '..');
        const before = await snapshot();
        const req = request(t.baseUrl)[method](route(encodePathSegment(value)));
        const res = await (body ? req.send(body) : req);
        expect([400, 404]).toContain(res.status);
        if (unstorable(value)) expect(res.status).toBe(400);
        if (res.status === 400) expect((res.body as { error: string }).error).toMatch(/^params[. ]/);
        expect(await snapshot()).toBe(before);
      }),
      RUNS,
    );
  });

  it('GraphQL variables and inline literals: a refusal is HTTP 400 naming the argument, never INTERNAL, nothing written', async () => {
    const forms = [
      (p: string, r: string) => ({ document: 'mutation($p: String!, $r: String) { rejectQuestion(pendingId: $p, reason: $r) { claimed } }', variables: { p, r } }),
      (p: string, r: string) => ({ document: `mutation { rejectQuestion(pendingId: ${graphqlString(p)}, reason: ${graphqlString(r)}) { claimed } }`, variables: undefined }),
      (p: string) => ({ document: 'query($p: String!) { question(pendingId: $p) { pendingId } }', variables: { p } }),
      (p: string, r: string) => ({ document: `{ pendingQuestions(workspaceId: ${graphqlString(p)}, after: ${graphqlString(r)}) { count } }`, variables: undefined }),
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...forms), text, text, async (form, p, r) => {
        const { document, variables } = form(p, r);
        const before = await snapshot();
        const res = await gql(t, document, variables);
        expect(res.status).toBeLessThan(500);
        const codes = (res.body.errors ?? []).map((error) => error.extensions?.code);
        expect(codes).not.toContain('INTERNAL_ERROR');
        if (unstorable(p) || (unstorable(r) && document.includes('reason'))) expect(res.status).toBe(400);
        if (res.body.errors) expect(await snapshot()).toBe(before);
      }),
      RUNS,
    );
  });

  it('MCP tool arguments: a refusal is HTTP 400 (JSON-RPC) or a tool error naming the argument, never INTERNAL_ERROR, nothing written', async () => {
    const calls = [
      { path: '/mcp', tool: 'answer_question_kandev', args: (s: string) => ({ pending_id: pendingId, rejected: true, reason: s }), field: 'reason' },
      { path: '/mcp', tool: 'answer_question_kandev', args: (s: string) => ({ pending_id: s, rejected: true }), field: 'pending_id' },
      { path: '/mcp', tool: 'list_pending_questions_kandev', args: (s: string) => ({ workspace_id: s }), field: 'workspace_id' },
      { path: '/mcp', tool: 'list_pending_questions_kandev', args: (s: string) => ({ cursor: s }), field: 'cursor' },
      { path: '/mcp', tool: 'list_tasks_kandev', args: (s: string) => ({ workspace_id: s }), field: 'workspace_id' },
      {
        path: '/mcp/session',
        tool: 'ask_user_question_kandev',
        args: (s: string) => ({ questions: [{ prompt: `p${s}`, options: [{ label: 'a' }, { label: 'b' }] }] }),
        field: 'questions[0].prompt',
      },
      { path: '/mcp/session', tool: 'ask_user_question_kandev', args: (s: string) => ({ questions: TWO_QUESTIONS, context: s }), field: 'context' },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...calls), text, async (call, value) => {
        const before = await snapshot();
        const res = await rawToolCall(t.baseUrl, call.path, call.path === '/mcp' ? 'auth-disabled' : session.agentToken, call.tool, call.args(value));
        expect(res.status).toBeLessThan(500);
        if (unstorable(value)) {
          expect(res.status).toBe(400);
          expect(res.body.error?.message).toBe(`body.params.arguments.${call.field} ${unstorableTextReason(value)}`);
          expect(await snapshot()).toBe(before);
          return;
        }
        const toolText = res.body.result?.content?.[0]?.text ?? '';
        expect(toolText).not.toContain('INTERNAL_ERROR');
      }),
      RUNS,
    );
  });
});
