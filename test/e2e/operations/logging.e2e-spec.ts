/**
 * One log format: the real built server's stdout is pino JSON lines only (Nest's, Fastify's
 * and the service's own), every line written while serving a request carries its request id (`reqId`,
 * the x-request-id it answers with), an incoming W3C `traceparent` puts its trace id on them, the
 * resolution line names the caller, the surface and the request id — and tokens, cookies and answer
 * text never appear anywhere in the output.
 */
import { randomUUID } from 'node:crypto';
import { createTestDatabase } from '../../support/database.js';
import { logLine, startReplica } from '../../support/replicas.js';
import { killAllServers, logLines, type ServerProcess, stopServer } from '../../support/server-process.js';

const ADMIN_TOKEN = `admin-${randomUUID()}`;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const ANSWER_TEXT = `never-logged-${randomUUID()}`;
const REJECT_REASON = `never-logged-either-${randomUUID()}`;

describe('logs', () => {
  let server: ServerProcess;
  const secrets: string[] = [ADMIN_TOKEN, ANSWER_TEXT, REJECT_REASON];

  async function call(method: string, path: string, options: { bearer?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    return { status: response.status, headers: response.headers, body: (await response.json().catch(() => undefined)) as Record<string, unknown> };
  }

  beforeAll(async () => {
    server = await startReplica(await createTestDatabase(), { AUTH_MODE: 'enabled', ADMIN_TOKEN, LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    await stopServer(server).catch(() => undefined);
    await killAllServers();
  });

  it('carries request ids and trace ids, names who resolved where, and never writes a secret', async () => {
    const user = await call('POST', '/api/v1/admin/users', { bearer: ADMIN_TOKEN, body: { name: 'alice' } });
    const token = await call('POST', `/api/v1/admin/users/${user.body.id as string}/tokens`, { bearer: ADMIN_TOKEN, body: { name: 'cli' } });
    const pat = token.body.token as string;
    secrets.push(pat);
    const signIn = await call('POST', '/api/v1/auth/session', { body: { token: pat }, headers: { origin: server.baseUrl } });
    const cookie = /parley_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
    expect(cookie).toEqual(expect.any(String));
    secrets.push(cookie as string);

    const workspace = await call('POST', '/api/v1/workspaces', { bearer: pat, body: { name: 'ws' } });
    const task = await call('POST', '/api/v1/tasks', { bearer: pat, body: { title: 't', workspace_id: workspace.body.id } });
    const session = await call('POST', `/api/v1/tasks/${task.body.id as string}/sessions`, { bearer: pat, body: {} });
    secrets.push(session.body.agent_token as string);
    await call('PATCH', `/api/v1/sessions/${session.body.id as string}`, { bearer: pat, body: { state: 'RUNNING' } });
    await call('POST', `/api/v1/sessions/${session.body.id as string}/turns`, { bearer: pat });
    const question = { id: 'q', prompt: 'Which?', options: [{ option_id: 'a', label: 'A' }, { option_id: 'b', label: 'B' }] };
    const asked = await call('POST', '/api/v1/clarification/request', { bearer: pat, body: { session_id: session.body.id, questions: [question] } });
    const pendingId = asked.body.pending_id as string;

    const answered = await call('POST', `/api/v1/clarification/${pendingId}/respond`, {
      bearer: pat,
      body: { answers: [{ question_id: 'q', selected_options: ['a'], custom_text: ANSWER_TEXT }] },
      headers: { traceparent: TRACEPARENT },
    });
    expect(answered.status).toBe(200);
    const requestId = answered.headers.get('x-request-id');
    expect(requestId).toEqual(expect.any(String));
    // A losing rejection with a reason: its text must not be logged either.
    await call('POST', `/api/v1/clarification/${pendingId}/respond`, { bearer: pat, body: { rejected: true, reject_reason: REJECT_REASON } });
    // A request that fails with an unknown credential (the credential itself is not logged).
    const wrong = `parley_pat_${randomUUID()}`;
    secrets.push(wrong);
    expect((await call('GET', '/api/v1/tasks', { bearer: wrong })).status).toBe(401);

    const resolution = await logLine(server, (line) => line.msg === 'resolution' && line.pending_id === pendingId && line.claimed === true);
    expect(resolution).toMatchObject({ level: 'info', caller: `user:${user.body.id as string}`, surface: 'rest', reqId: requestId, trace_id: TRACE_ID });

    const completed = await logLine(server, (line) => line.reqId === requestId && line.msg === 'request completed');
    expect(completed).toMatchObject({ trace_id: TRACE_ID, res: { statusCode: 200 } });
    await stopServer(server);

    const lines = server.output.stdout.split('\n').filter((line) => line !== '');
    for (const line of lines) {
      expect(() => JSON.parse(line) as unknown).not.toThrow();
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect({ line, level: typeof parsed.level, time: typeof parsed.time, msg: typeof parsed.msg }).toEqual({ line, level: 'string', time: 'string', msg: 'string' });
    }
    const requestLines = logLines(server.output.stdout).filter((line) => line.req !== undefined || line.res !== undefined || line.msg === 'resolution');
    expect(requestLines.length).toBeGreaterThan(10);
    for (const line of requestLines) expect({ msg: line.msg, reqId: typeof line.reqId }).toEqual({ msg: line.msg, reqId: 'string' });
    // Nest's own start-up lines are pino lines too (one format).
    expect(logLines(server.output.stdout).some((line) => line.context === 'RoutesResolver' || line.context === 'NestApplication')).toBe(true);

    const output = server.output.stdout + server.output.stderr;
    for (const secret of secrets) expect({ secret, logged: output.includes(secret) }).toEqual({ secret, logged: false });
  });
});
