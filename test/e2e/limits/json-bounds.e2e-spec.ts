/**
 * Every JSON body is bounded while it is parsed — nesting, array items,
 * object fields, string sizes, no field name twice in an object, no number that does not read as
 * written — before class-transformer or class-validator see it, with a 400 naming the path, in each
 * surface's own error shape, and nothing written.
 */
import request from 'supertest';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createRunningSession, createUser } from '../../support/fixtures.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const TOO_DEEP = /^body(\[0\]){32} is nested too deeply \(at most 32 levels\)$/;

describe('parse-time bounds on JSON bodies', () => {
  let t: TestApp;
  let token: string;

  const countRows = async () => {
    const { rows } = await t.db.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM workspaces) + (SELECT count(*) FROM tasks) + (SELECT count(*) FROM task_session_messages)
            + (SELECT count(*) FROM users) AS n`,
    );
    return Number(rows[0]?.n);
  };

  const post = (path: string, body: string, bearer?: string) => {
    const req = request(t.baseUrl).post(path).set('content-type', 'application/json');
    return (bearer ? req.set('authorization', `Bearer ${bearer}`) : req).send(body);
  };
  /** A JSON-RPC POST to an MCP endpoint, as raw text. */
  const postMcp = (path: string, bearer: string, body: string) => post(path, body, bearer).set('accept', 'application/json, text/event-stream');

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    token = (await createUser(t, 'alice')).token;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a 600 KB body of nested arrays on the unauthenticated sign-in is a 400 naming the path, never a 500', async () => {
    const body = nested(300_000);
    expect(body.length).toBe(600_000);
    const before = await countRows();
    const res = await post('/api/v1/auth/session', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(TOO_DEEP), code: 'VALIDATION_ERROR' });
    expect(res.get('Set-Cookie')).toBeUndefined();
    expect(await countRows()).toBe(before);
    // The server is still answering promptly afterwards.
    await request(t.baseUrl).get('/healthz').expect(200);
  });

  it('every DTO route refuses a too-deep body inside a real field, naming that field', async () => {
    const session = await createRunningSession(t, { bearer: token });
    const deepOptions = `{"session_id":"${session.sessionId}","questions":[{"prompt":"p","options":${nested(40)}}]}`;
    const before = await countRows();
    const res = await post('/api/v1/clarification/request', deepOptions, token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `body.questions[0].options${'[0]'.repeat(29)} is nested too deeply (at most 32 levels)`, code: 'VALIDATION_ERROR' });
    for (const path of ['/api/v1/workspaces', '/api/v1/tasks', `/api/v1/tasks/${session.taskId}/sessions`, '/api/v1/admin/users']) {
      const deep = await post(path, `{"name":${nested(50)}}`, path.includes('admin') ? TEST_ADMIN_TOKEN : token);
      expect({ path, status: deep.status, body: deep.body }).toEqual({ path, status: 400, body: { error: `body.name${'[0]'.repeat(31)} is nested too deeply (at most 32 levels)`, code: 'VALIDATION_ERROR' } });
    }
    expect(await countRows()).toBe(before);
  });

  it('bounds array items, object fields and string sizes, naming the path', async () => {
    const before = await countRows();
    for (const [body, error] of [
      [JSON.stringify({ session_id: 's', questions: new Array(1001).fill({}) }), 'body.questions has more than 1000 items'],
      [JSON.stringify(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, i]))), 'body has more than 1000 fields'],
      [JSON.stringify({ session_id: 's', questions: [], context: 'c'.repeat(100_001) }), 'body.context is longer than 100000 characters'],
    ] as const) {
      const res = await post('/api/v1/clarification/request', body, token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error, code: 'VALIDATION_ERROR' });
    }
    expect(await countRows()).toBe(before);
  });

  it('refuses a body that is not UTF-8 (instead of storing U+FFFD) and one carrying __proto__', async () => {
    const before = await countRows();
    const invalid = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    const res = await fetch(`${t.baseUrl}/api/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: invalid,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'body is not valid UTF-8', code: 'VALIDATION_ERROR' });
    const proto = await post('/api/v1/workspaces', '{"name":"x","__proto__":{"owner_id":"someone"}}', token);
    expect(proto.status).toBe(400);
    expect(proto.body).toEqual({ error: 'body has the forbidden field name "__proto__"', code: 'VALIDATION_ERROR' });
    expect(await countRows()).toBe(before);
  });

  it('refuses a field name given twice in an object, or a number that does not read as written, anywhere in any body, naming it', async () => {
    const session = await createRunningSession(t, { bearer: token });
    const twice = (path: string) => `${path} is given twice (a field name may appear once in an object)`;
    const inexact = (path: string) => `${path} is a number that does not read as written (out of range, or more digits than a 64-bit float holds)`;
    const before = await countRows();
    // JSON.parse would keep the last `name` (and read 1e400 as Infinity, 1.00000000000000001 as 1): refused before it builds anything.
    for (const [path, body, error] of [
      ['/api/v1/workspaces', '{"name":"shown","name":"kept"}', twice('body.name')],
      ['/api/v1/workspaces', '{"name":"w","n\\u0061me":"kept"}', twice('body.name')],
      ['/api/v1/tasks', `{"title":"t","workspace_id":${JSON.stringify(session.workspaceId)},"extra":{"a":[{"b":1,"b":2}]}}`, twice('body.extra.a[0].b')],
      ['/api/v1/clarification/request', `{"session_id":${JSON.stringify(session.sessionId)},"questions":[],"expires_in_seconds":1e400}`, inexact('body.expires_in_seconds')],
      ['/api/v1/clarification/request', `{"session_id":${JSON.stringify(session.sessionId)},"questions":[],"expires_in_seconds":60.00000000000000001}`, inexact('body.expires_in_seconds')],
    ] as const) {
      const res = await post(path, body, token);
      expect({ path, status: res.status, body: res.body as unknown }).toEqual({ path, status: 400, body: { error, code: 'VALIDATION_ERROR' } });
    }
    const graphql = await post('/graphql', '{"query":"{ workspaces { id } }","variables":{"a":1,"a":2}}', token);
    expect({ status: graphql.status, body: graphql.body as unknown }).toEqual({
      status: 400,
      body: { data: null, errors: [{ message: twice('body.variables.a'), extensions: { code: 'VALIDATION_ERROR' } }] },
    });
    for (const [path, bearer] of [
      ['/mcp', token],
      ['/mcp/session', session.agentToken],
    ] as const) {
      const res = await postMcp(path, bearer, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"questions":[],"questions":[]}}}');
      expect({ path, status: res.status, body: res.body as unknown }).toEqual({
        path,
        status: 400,
        body: { jsonrpc: '2.0', error: { code: -32700, message: twice('body.params.arguments.questions') }, id: null },
      });
    }
    expect(await countRows()).toBe(before);
    // The same name in different objects, and numbers written any way a double reads back, are accepted as before.
    const questions = '[{"prompt":"a","options":[{"label":"x"},{"label":"y"}]},{"prompt":"b","options":[{"label":"x"},{"label":"y"}]}]';
    await post('/api/v1/clarification/request', `{"session_id":${JSON.stringify(session.sessionId)},"questions":${questions},"expires_in_seconds":6.0e1}`, token).expect(200);
  });

  it('/graphql answers GraphQL errors with VALIDATION_ERROR and HTTP 400', async () => {
    const res = await post('/graphql', `{"query":"{ workspaces { id } }","variables":{"x":${nested(40)}}}`, token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      data: null,
      errors: [{ message: `body.variables.x${'[0]'.repeat(30)} is nested too deeply (at most 32 levels)`, extensions: { code: 'VALIDATION_ERROR' } }],
    });
  });

  it('/mcp and /mcp/session answer a JSON-RPC error with HTTP 400', async () => {
    const session = await createRunningSession(t, { bearer: token });
    const call = (args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":${args}}}`;
    for (const [path, bearer] of [
      ['/mcp', token],
      ['/mcp/session', session.agentToken],
    ] as const) {
      const res = await postMcp(path, bearer, call(`{"questions":${nested(40)}}`));
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32602, message: `body.params.arguments.questions${'[0]'.repeat(29)} is nested too deeply (at most 32 levels)` },
        id: null,
      });
    }
  });
});
