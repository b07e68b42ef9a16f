/**
 * The MCP contracts agents are written against: every invalid
 * argument of the external tools is a VALIDATION_ERROR tool error naming the field — never the
 * SDK's `-32602 Input validation error` — every module's typed error maps onto a code, an
 * unexpected error is logged with the request id and answered INTERNAL_ERROR; tools/list publishes
 * annotations and output schemas that the results satisfy.
 */
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { McpError, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { AuthorizationError } from '#authorization';
import { PendingListService } from '#clarification';
import { loadConfig } from '#config';
import { TasksError, TasksErrorCode, TaskService } from '#tasks';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';

const LIST = 'list_pending_questions_kandev';
const ANSWER = 'answer_question_kandev';
const LIST_TASKS = 'list_tasks_kandev';

async function rowsText(t: TestApp, pendingId: string): Promise<string[]> {
  const { rows } = await t.db.query<{ text: string }>(
    `SELECT metadata::text || '|' || updated_at::text AS text FROM task_session_messages
      WHERE metadata->>'pending_id' = $1 ORDER BY id`,
    [pendingId],
  );
  return rows.map((row) => row.text);
}

describe('external MCP tools: argument validation, error mapping, published contract', () => {
  let t: TestApp;
  let mcp: McpConnection;
  let pendingId: string;

  beforeAll(async () => {
    t = await startApp();
    mcp = await connectMcp(t.baseUrl, { headers: { 'x-request-id': 'req-mcp-contracts' } });
    const fixture = await createRunningSession(t);
    const asked = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS });
    pendingId = asked.body.pending_id as string;
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  const invalid: Array<[string, string, () => Record<string, unknown>, string]> = [
    [ANSWER, 'pending_id missing', () => ({ rejected: true }), 'pending_id is required'],
    [ANSWER, 'pending_id a number', () => ({ pending_id: 42, rejected: true }), 'pending_id must be a string'],
    [ANSWER, 'answers a string', () => ({ pending_id: pendingId, answers: 'pg' }), 'answers must be an array'],
    [ANSWER, 'answers an object', () => ({ pending_id: pendingId, answers: { db: 'pg' } }), 'answers must be an array'],
    [ANSWER, 'an answer entry a string', () => ({ pending_id: pendingId, answers: ['pg'] }), 'answers[0] must be an object'],
    [ANSWER, 'question_id a number', () => ({ pending_id: pendingId, answers: [{ question_id: 1 }] }), 'answers[0].question_id must be a string'],
    [
      ANSWER,
      'selected_options a string',
      () => ({ pending_id: pendingId, answers: [{ question_id: 'db', selected_options: 'pg' }, { question_id: 'q2' }] }),
      'answers[0].selected_options must be an array',
    ],
    [
      ANSWER,
      'a selected option a number',
      () => ({ pending_id: pendingId, answers: [{ question_id: 'db' }, { question_id: 'q2', selected_options: ['q2_opt1', 2] }] }),
      'answers[1].selected_options[1] must be a string',
    ],
    [
      ANSWER,
      'custom_text an object',
      () => ({ pending_id: pendingId, answers: [{ question_id: 'db', custom_text: { text: 'x' } }, { question_id: 'q2' }] }),
      'answers[0].custom_text must be a string',
    ],
    [ANSWER, 'rejected a string', () => ({ pending_id: pendingId, rejected: 'yes' }), 'rejected must be a boolean'],
    [ANSWER, 'reason a number', () => ({ pending_id: pendingId, rejected: true, reason: 5 }), 'reason must be a string'],
    [ANSWER, 'reject_reason null', () => ({ pending_id: pendingId, rejected: true, reject_reason: null }), 'reject_reason must be a string'],
    [ANSWER, 'an unknown argument', () => ({ pending_id: pendingId, rejectd: true }), 'rejectd is not an allowed field'],
    [LIST, 'limit a string', () => ({ limit: 'ten' }), 'limit must be a number'],
    [LIST, 'limit a boolean', () => ({ limit: true }), 'limit must be a number'],
    [LIST, 'workspace_id a number', () => ({ workspace_id: 7 }), 'workspace_id must be a string'],
    [LIST, 'created_since a number', () => ({ created_since: 0 }), 'created_since must be a string'],
    [LIST, 'cursor an object', () => ({ cursor: {} }), 'cursor must be a string'],
    [LIST, 'an unknown argument', () => ({ page: 2 }), 'page is not an allowed field'],
    [LIST_TASKS, 'workspace_id an array', () => ({ workspace_id: ['a'] }), 'workspace_id must be a string'],
    [LIST_TASKS, 'an unknown argument', () => ({ state: 'RUNNING' }), 'state is not an allowed field'],
  ];

  it.each(invalid)('%s: %s ⇒ VALIDATION_ERROR naming the field, nothing written', async (tool, _label, args, message) => {
    const before = await rowsText(t, pendingId);
    const outcome = await mcp.call(tool, args());
    expect(outcome.isError).toBe(true);
    expect(outcome.text).not.toMatch(/-32602|Input validation error/);
    expect(JSON.parse(outcome.text)).toEqual({ code: 'VALIDATION_ERROR', message });
    expect(await rowsText(t, pendingId)).toEqual(before);
  });

  it('an unknown tool is a protocol error (MCP "Error Handling"), not a tool result', async () => {
    const error = await mcp.client.callTool({ name: 'delete_everything', arguments: {} }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toMatch(/Unknown tool: delete_everything/);
  });

  it.each([
    ['TasksError (not found)', () => TasksError.workspaceNotFound(), { code: 'NOT_FOUND', message: 'workspace not found' }],
    ['TasksError (conflict)', () => new TasksError(TasksErrorCode.TaskArchived, 'task is archived'), { code: 'CONFLICT', message: 'task is archived' }],
    ['TasksError (invalid argument)', () => TasksError.invalidArgument('workspace_id is invalid'), { code: 'VALIDATION_ERROR', message: 'workspace_id is invalid' }],
    ['AuthorizationError (unauthenticated)', () => AuthorizationError.unauthenticated(), { code: 'UNAUTHENTICATED', message: 'authentication required' }],
    ['AuthorizationError (not found)', () => AuthorizationError.notFound('task'), { code: 'NOT_FOUND', message: 'task not found' }],
  ])("every module's typed errors map onto a code: %s", async (_label, error, expected) => {
    jest.spyOn(t.app.get(TaskService), 'list').mockRejectedValueOnce(error());
    expect(JSON.parse((await mcp.call(LIST_TASKS, {})).text)).toEqual(expected);
  });

  it('an unexpected error is logged with the request id and answered INTERNAL_ERROR naming it, without its details', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error');
    jest.spyOn(t.app.get(PendingListService), 'list').mockRejectedValueOnce(new Error('connection to 10.0.0.7 lost'));
    const outcome = await mcp.call(LIST, {});
    expect(JSON.parse(outcome.text)).toEqual({ code: 'INTERNAL_ERROR', message: 'internal error (request id req-mcp-contracts)' });
    expect(outcome.text).not.toContain('10.0.0.7');
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({ request_id: 'req-mcp-contracts', tool: LIST, err: expect.objectContaining({ message: 'connection to 10.0.0.7 lost' }) }),
    );
  });

  it('tools/list: read-only list tools, an idempotent answer tool, an output schema on each that its result satisfies', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get(LIST)?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get(LIST_TASKS)?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get(ANSWER)?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    for (const tool of tools) {
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    // The SDK client validates structuredContent against the published outputSchema: a mismatch would throw here.
    expect((await mcp.call(LIST, {})).structured).toMatchObject({ count: expect.any(Number), next_cursor: expect.any(String) });
    expect((await mcp.call(LIST_TASKS, {})).structured).toMatchObject({ tasks: expect.any(Array) });
    const fixture = await createRunningSession(t);
    const asked = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS });
    const answered = await mcp.call(ANSWER, { pending_id: asked.body.pending_id, rejected: true, reason: 'no' });
    expect(answered.structured).toEqual({ claimed: true, status: 'rejected', receipt: expect.any(String), response: { answers: [], rejected: true, reject_reason: 'no' } });
    expect((await mcp.call(ANSWER, { pending_id: asked.body.pending_id, rejected: true })).structured).toMatchObject({ claimed: false });
  });
});

/**
 * The Streamable HTTP answers of a stateless server (MCP spec, "Transports"), as the SDK's own
 * transport gives them: what a client may rely on whichever transport serves the surface.
 */
describe('MCP over HTTP: the Streamable HTTP checks and answers of a stateless server', () => {
  const ACCEPT = 'application/json, text/event-stream';
  const refusal = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });
  const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2099-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  let t: TestApp;
  let agentToken: string;

  beforeAll(async () => {
    // A batch limit above the transport's own (100) so that one is reachable.
    t = await startApp({ config: { mcp: { ...loadConfig({}).mcp, maxBatch: 200 } } });
    agentToken = (await createRunningSession(t)).agentToken;
  });
  afterAll(async () => {
    await t.close();
  });

  async function post(body: string | undefined, headers: Record<string, string> = {}, path = '/mcp') {
    const res = await fetch(`${t.baseUrl}${path}`, {
      method: 'POST',
      headers: { accept: ACCEPT, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), text, json: (): unknown => JSON.parse(text) };
  }

  it.each(['application/json', 'text/event-stream', '*/*'])('Accept %s (not both media types) ⇒ 406', async (accept) => {
    const res = await post(JSON.stringify(list(1)), { accept });
    expect({ status: res.status, body: res.json() }).toEqual({
      status: 406,
      body: refusal(-32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'),
    });
  });

  it('no body and no Content-Type ⇒ 415', async () => {
    const res = await post(undefined);
    expect({ status: res.status, body: res.json() }).toEqual({ status: 415, body: refusal(-32000, 'Unsupported Media Type: Content-Type must be application/json') });
  });

  it.each([
    ['not a JSON-RPC message', { hello: 'world' }],
    ['a batch with one invalid message', [list(1), { jsonrpc: '1.0', id: 2, method: 'tools/list' }]],
    ['null', null],
  ])('%s ⇒ 400 -32700', async (_label, body) => {
    const res = await post(JSON.stringify(body));
    expect({ status: res.status, body: res.json() }).toEqual({ status: 400, body: refusal(-32700, 'Parse error: Invalid JSON-RPC message') });
  });

  it('a batch of more than 100 messages ⇒ 400 -32600', async () => {
    const res = await post(JSON.stringify(Array.from({ length: 101 }, (_, i) => list(i + 1))));
    expect({ status: res.status, body: res.json() }).toEqual({ status: 400, body: refusal(-32600, 'Invalid Request: Batch must not exceed 100 messages') });
  });

  it('an unsupported mcp-protocol-version ⇒ 400 naming the supported ones; initialize is exempt', async () => {
    const refused = await post(JSON.stringify(list(1)), { 'mcp-protocol-version': '1999-01-01' });
    expect({ status: refused.status, body: refused.json() }).toEqual({
      status: 400,
      body: refusal(-32000, `Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`),
    });
    const initialized = await post(JSON.stringify(initialize), { 'mcp-protocol-version': '1999-01-01' });
    expect(initialized.status).toBe(200);
    expect(initialized.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: SUPPORTED_PROTOCOL_VERSIONS[0], serverInfo: { name: 'parley' } } });
  });

  it('initialize inside a batch ⇒ 400 -32600', async () => {
    const res = await post(JSON.stringify([initialize, list(2)]));
    expect({ status: res.status, body: res.json() }).toEqual({ status: 400, body: refusal(-32600, 'Invalid Request: Only one initialization request is allowed') });
  });

  it.each([
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a batch of notifications and responses', [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 9, result: {} }]],
    ['an empty batch', []],
  ])('%s (no request) ⇒ 202, empty body', async (_label, body) => {
    const res = await post(JSON.stringify(body));
    expect({ status: res.status, text: res.text }).toEqual({ status: 202, text: '' });
  });

  it('json mode: one request ⇒ its response; a batch ⇒ the responses of its requests in order (one alone unwrapped)', async () => {
    const single = await post(JSON.stringify(list(7)));
    expect({ status: single.status, type: single.type }).toEqual({ status: 200, type: 'application/json' });
    expect(single.json()).toMatchObject({ jsonrpc: '2.0', id: 7, result: { tools: expect.any(Array) } });
    const batch = await post(JSON.stringify([list(3), { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 'b', method: 'nope' }]));
    expect(batch.status).toBe(200);
    expect(batch.json()).toEqual([
      { jsonrpc: '2.0', id: 3, result: { tools: expect.any(Array) } },
      { jsonrpc: '2.0', id: 'b', error: { code: -32601, message: 'Method not found' } },
    ]);
    const oneInBatch = await post(JSON.stringify([list(4), { jsonrpc: '2.0', method: 'notifications/initialized' }]));
    expect(oneInBatch.json()).toMatchObject({ jsonrpc: '2.0', id: 4, result: { tools: expect.any(Array) } });
  });

  it('sse mode (/mcp/session): an event stream of one `message` event per response, ended once every request is answered', async () => {
    const res = await fetch(`${t.baseUrl}/mcp/session`, {
      method: 'POST',
      headers: { accept: ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${agentToken}` },
      body: JSON.stringify([list(1), { jsonrpc: '2.0', id: 2, method: 'ping' }]),
    });
    expect({ status: res.status, type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), buffering: res.headers.get('x-accel-buffering') }).toEqual({
      status: 200,
      type: 'text/event-stream',
      cache: 'no-cache, no-transform',
      buffering: 'no',
    });
    const events = (await res.text()).split('\n\n');
    expect(events.pop()).toBe('');
    expect(events.map((event) => event.split('\n').slice(0, 1))).toEqual([['event: message'], ['event: message']]);
    const messages = events.map((event) => JSON.parse(event.slice('event: message\ndata: '.length)) as { id: number });
    expect(messages.map((message) => message.id).sort()).toEqual([1, 2]);
    expect(messages).toContainEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });
});
