/**
 * Sockets still sending a request's headers or body after
 * HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS, and idle keep-alive sockets after KEEP_ALIVE_TIMEOUT_MS,
 * are closed; the long-lived exchanges — the /wait long poll, the blocking MCP ask (SSE), GraphQL
 * subscriptions (WebSocket) — are bounded by their own limits and outlive those timeouts.
 */
import net from 'node:net';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { subscribe } from '../../support/graphql.js';
import { connectMcp } from '../../support/mcp.js';

const ANSWERS = { answers: [{ question_id: 'db', selected_options: ['pg'] }, { question_id: 'q2', selected_options: ['q2_opt1'] }] };

interface RawSocket {
  received(): string;
  closed: Promise<void>;
  socket: net.Socket;
}

/** A raw TCP client that sends `bytes` and then stays silent. */
function rawClient(t: TestApp, bytes: string): Promise<RawSocket> {
  const { port } = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(bytes);
      resolve({ received: () => data, closed, socket });
    });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
    socket.once('error', reject);
  });
}

/** Resolves when `promise` does; a socket that is never closed fails the test instead of hanging it. */
async function within<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('slow clients', () => {
  let t: TestApp;
  const sockets: net.Socket[] = [];

  const open = async (bytes: string) => {
    const client = await rawClient(t, bytes);
    sockets.push(client.socket);
    return client;
  };

  beforeAll(async () => {
    t = await startApp({ config: { requestTimeoutMs: 1000, headersTimeoutMs: 500, keepAliveTimeoutMs: 500, waitTimeoutMs: 60_000, askTimeoutMs: 60_000 } });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await t.close();
  });

  it('a socket holding a partial body is closed (408) once REQUEST_TIMEOUT_MS has passed', async () => {
    const client = await open(`POST /api/v1/workspaces HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
    await within(client.closed, 'closing the partial-body socket');
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect((await t.db.query('SELECT count(*)::int AS n FROM workspaces')).rows[0]).toEqual({ n: 0 });
  });

  it('a socket holding partial headers is closed once HEADERS_TIMEOUT_MS has passed', async () => {
    const client = await open('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1');
    await within(client.closed, 'closing the partial-headers socket');
    expect(client.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
  });

  it('an idle keep-alive socket is closed once KEEP_ALIVE_TIMEOUT_MS has passed', async () => {
    const client = await open('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await within(client.closed, 'closing the idle keep-alive socket');
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('the /wait long poll, the blocking MCP ask and a subscription outlive those timeouts and still get their answers', async () => {
    const rest = await createRunningSession(t);
    const agent = await createRunningSession(t);
    const subscription = subscribe<{ questionEvents: { type: string; pendingId: string } }>(t, 'subscription { questionEvents { type pendingId } }');
    await subscription.connected;

    const asked = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: rest.sessionId, questions: TWO_QUESTIONS }).expect(200);
    const restPending = (asked.body as { pending_id: string }).pending_id;
    const waiting = request(t.baseUrl).get(`/api/v1/clarification/${restPending}/wait`).then((res) => res);
    const mcp = await connectMcp(t.baseUrl, { path: '/mcp/session', bearer: agent.agentToken });
    const asking = mcp.call('ask_user_question_kandev', { questions: TWO_QUESTIONS });
    const agentPending = await eventually(
      async () =>
        (
          await t.db.query<{ pending_id: string }>(
            `SELECT metadata->>'pending_id' AS pending_id FROM task_session_messages WHERE task_session_id = $1 LIMIT 1`,
            [agent.sessionId],
          )
        ).rows[0]?.pending_id,
      10_000,
      'the agent asking',
    );

    // A slow client opened after them is cut: by then every timeout has run out for the long-lived ones too.
    const slow = await open(`POST /api/v1/workspaces HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    await within(slow.closed, 'closing the slow socket');

    try {
      await request(t.baseUrl).post(`/api/v1/clarification/${restPending}/respond`).send(ANSWERS).expect(200);
      await request(t.baseUrl).post(`/api/v1/clarification/${agentPending}/respond`).send(ANSWERS).expect(200);
      const waited = await within(waiting, 'the long poll answering');
      expect(waited.status).toBe(200);
      expect(waited.body).toMatchObject({ pending_id: restPending, rejected: false });
      const answered = await within(asking, 'the ask returning');
      expect(answered.isError).toBe(false);
      expect(answered.structured).toMatchObject({ db: { selected_option: 'pg' } });
      expect(answered.structured).not.toHaveProperty('rejected');
      const events = await subscription.waitFor(4);
      expect(events.map((event) => event.questionEvents.type)).toEqual(['ASKED', 'ASKED', 'ANSWERED', 'ANSWERED']);
    } finally {
      await mcp.close();
      await subscription.close();
    }
  });
});
