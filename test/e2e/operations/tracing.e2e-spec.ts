/**
 * Traced end to end: the real built server (its SDK starts before its modules load) with
 * the standard OpenTelemetry variables pointing at a local OTLP/HTTP receiver (JSON). The agent's
 * incoming `traceparent` is continued through its ask; the answer's trace holds the claim
 * transaction (with its SQL), the delivery to a waiting agent or the resume POST — whose own
 * `traceparent`, as the receiver got it, names that POST's client span, as a webhook POST's does; MCP
 * calls are spans with the MCP semantic conventions' attributes.
 */
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../support/otlp-receiver.js';
import { killAllServers, type ServerProcess, startServerProcess, stopServer } from '../../support/server-process.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const SERVER = 2;
const CLIENT = 3;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A sampled W3C traceparent of a new trace: the ids the agent's own span would have. */
function agentContext(): { traceId: string; parentId: string; traceparent: string } {
  const traceId = hex(16);
  const parentId = hex(8);
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let otlp: OtlpReceiver;
  let resumes: WebhookReceiver;
  let server: ServerProcess;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    resumes = await startWebhookReceiver();
    server = await startServerProcess({
      env: {
        DATABASE_URL: await createTestDatabase(),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
  });
  afterAll(async () => {
    await killAllServers();
    await Promise.all([otlp.close(), resumes.close()]);
  });

  const inTrace = (traceId: string) => otlp.spans.filter((span) => span.traceId === traceId);
  /** The first exported span that `match` accepts, once exported. */
  const exported = (what: string, match: (span: ReceivedSpan) => boolean) => eventually(() => otlp.spans.find(match), 10_000, what);
  /** Whether `span` descends from `ancestor` (through the spans exported). */
  function descends(span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
    for (let at: ReceivedSpan | undefined = span; at !== undefined; at = otlp.spans.find((s) => s.spanId === at?.parentSpanId && s.traceId === span.traceId)) {
      if (at.parentSpanId === ancestor.spanId) return true;
    }
    return false;
  }

  async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  }

  /** A 2026-07-28 `tools/call` of the in-session ask, raw (the revision's envelope and headers), with the agent's traceparent. */
  function ask2026(id: string | number, args: Record<string, unknown>, agentToken: string, traceparent: string): Promise<Response> {
    return post(
      '/mcp/session',
      {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'ask_user_question_kandev',
          arguments: args,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'traced-agent', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      {
        authorization: `Bearer ${agentToken}`,
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'ask_user_question_kandev',
        traceparent,
      },
    );
  }

  it("continues the agent's traceparent through the ask, and the answer's trace holds the claim and the resume POST whose traceparent it sent", async () => {
    const fixture = await createRunningSession(server, { resumeUrl: resumes.url });
    const agent = agentContext();
    const asked = await post('/api/v1/clarification/request', { session_id: fixture.sessionId, questions: TWO_QUESTIONS }, { authorization: `Bearer ${fixture.agentToken}`, traceparent: agent.traceparent });
    expect(asked.status).toBe(200);
    const { pending_id: pendingId } = (await asked.json()) as { pending_id: string };

    // The ask: the agent's trace, its request span a child of the agent's span, the ask span (and its SQL) under it.
    const ask = await exported('the ask span', (span) => span.name === 'parley.ask' && span.attributes['parley.pending_id'] === pendingId);
    expect(ask.traceId).toBe(agent.traceId);
    const askRequest = inTrace(agent.traceId).find((span) => span.kind === SERVER && span.parentSpanId === agent.parentId);
    expect(askRequest).toMatchObject({ name: 'POST', attributes: expect.objectContaining({ 'http.request.method': 'POST', 'url.path': '/api/v1/clarification/request' }) });
    expect(descends(ask, askRequest as ReceivedSpan)).toBe(true);
    await exported('the ask SQL', (span) => span.traceId === agent.traceId && span.kind === CLIENT && 'db.system.name' in span.attributes);

    // The answer, by a person over REST: a trace of its own.
    const answered = await post(`/api/v1/clarification/${pendingId}/respond`, {
      answers: [
        { question_id: 'db', selected_options: ['pg'], custom_text: '' },
        { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
      ],
    });
    expect(answered.status).toBe(200);
    const [resume] = resumes.postsFor(pendingId);
    const sent = TRACEPARENT.exec(String(resume?.headers.traceparent));
    expect(sent).not.toBeNull();
    const [, resumeTraceId, resumeParentId] = sent as unknown as [string, string, string];

    const claim = await exported('the claim span', (span) => span.name === 'parley.claim' && span.attributes['parley.pending_id'] === pendingId);
    expect(claim.traceId).toBe(resumeTraceId);
    expect(claim.traceId).not.toBe(agent.traceId);
    const resumePost = await exported('the resume POST span', (span) => span.spanId === resumeParentId);
    expect(resumePost).toMatchObject({ traceId: claim.traceId, kind: CLIENT, name: 'POST', attributes: expect.objectContaining({ 'url.full': resumes.url, 'http.response.status_code': 202 }) });
    const answerRequest = await exported('the answer request span', (span) => span.traceId === claim.traceId && span.kind === SERVER && span.parentSpanId === '');
    expect(answerRequest.attributes['url.path']).toBe(`/api/v1/clarification/${pendingId}/respond`);
    expect(descends(claim, answerRequest)).toBe(true);
    expect(descends(resumePost, answerRequest)).toBe(true);
    // The claim transaction's statements are its children.
    const claimSql = await exported('the claim SQL', (span) => span.parentSpanId === claim.spanId && span.kind === CLIENT);
    expect(claimSql.attributes['db.system.name']).toBe('postgresql');
  });

  it('every webhook POST is a client span, and carries a traceparent naming it', async () => {
    const hooks = await startWebhookReceiver();
    try {
      const fixture = await createRunningSession(server);
      const subscribed = await post(`/api/v1/workspaces/${fixture.workspaceId}/webhooks`, { url: hooks.url, events: ['asked'] });
      expect(subscribed.status).toBe(201);
      const asked = await post('/api/v1/clarification/request', { session_id: fixture.sessionId, questions: TWO_QUESTIONS }, { authorization: `Bearer ${fixture.agentToken}` });
      expect(asked.status).toBe(200);

      const delivered = await eventually(() => hooks.posts[0], 10_000, 'the webhook POST');
      const sent = TRACEPARENT.exec(String(delivered.headers.traceparent));
      expect(sent).not.toBeNull();
      const [, traceId, parentId] = sent as unknown as [string, string, string];
      const webhookPost = await exported('the webhook POST span', (span) => span.spanId === parentId);
      expect(webhookPost).toMatchObject({ traceId, kind: CLIENT, name: 'POST', attributes: expect.objectContaining({ 'url.full': hooks.url }) });
    } finally {
      await hooks.close();
    }
  });

  it('an MCP tools/call is a span with the MCP attributes in the agent\'s trace, and the answer\'s trace holds the claim and the delivery to the waiting agent', async () => {
    const fixture = await createRunningSession(server);
    const agent = agentContext();
    const call = post(
      '/mcp/session',
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'ask_user_question_kandev', arguments: { questions: [{ prompt: 'Ship it?', options: [{ label: 'yes' }, { label: 'no' }] }] } },
      },
      {
        authorization: `Bearer ${fixture.agentToken}`,
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'mcp-session-id': 'agent-session-1',
        traceparent: agent.traceparent,
      },
    );
    const ask = await exported('the ask span', (span) => span.name === 'parley.ask' && span.traceId === agent.traceId);
    const pendingId = ask.attributes['parley.pending_id'] as string;

    const answered = await post(`/api/v1/clarification/${pendingId}/respond`, { answers: [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' }] });
    expect(answered.status).toBe(200);
    const reply = await call;
    expect(reply.status).toBe(200);
    expect(await reply.text()).toContain('q1_opt1');

    const tool = await exported('the tools/call span', (span) => span.name === 'tools/call ask_user_question_kandev' && span.traceId === agent.traceId);
    expect(tool).toMatchObject({
      kind: SERVER,
      status: 0,
      attributes: expect.objectContaining({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'ask_user_question_kandev',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.session.id': 'agent-session-1',
        'mcp.protocol.version': '2025-06-18',
        'jsonrpc.request.id': '7',
      }),
    });
    expect(descends(ask, tool)).toBe(true);
    const mcpRequest = inTrace(agent.traceId).find((span) => span.kind === SERVER && span.parentSpanId === agent.parentId);
    expect(mcpRequest?.attributes['url.path']).toBe('/mcp/session');
    expect(descends(tool, mcpRequest as ReceivedSpan)).toBe(true);

    const claim = await exported('the claim span', (span) => span.name === 'parley.claim' && span.attributes['parley.pending_id'] === pendingId);
    const deliver = await exported('the delivery span', (span) => span.name === 'parley.deliver' && span.attributes['parley.pending_id'] === pendingId);
    expect(deliver.traceId).toBe(claim.traceId);
    expect(claim.traceId).not.toBe(agent.traceId);
  });

  it("a 2026-07-28 tools/call is a span with the MCP attributes (no session id: the revision has none) in the agent's trace, ended with the answer", async () => {
    const fixture = await createRunningSession(server);
    const agent = agentContext();
    const call = ask2026('ask-2026', { questions: [{ prompt: 'Ship it?', options: [{ label: 'yes' }, { label: 'no' }] }] }, fixture.agentToken, agent.traceparent);
    const ask = await exported('the ask span', (span) => span.name === 'parley.ask' && span.traceId === agent.traceId);
    const pendingId = ask.attributes['parley.pending_id'] as string;
    // Blocked: the call's span is still open, so not exported.
    expect(inTrace(agent.traceId).some((span) => span.name === 'tools/call ask_user_question_kandev')).toBe(false);

    const answered = await post(`/api/v1/clarification/${pendingId}/respond`, { answers: [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' }] });
    expect(answered.status).toBe(200);
    const reply = await call;
    expect(reply.status).toBe(200);
    const text = await reply.text();
    expect(text).toContain('q1_opt1');
    expect(text).toContain('"resultType":"complete"');

    const tool = await exported('the 2026 tools/call span', (span) => span.name === 'tools/call ask_user_question_kandev' && span.traceId === agent.traceId);
    expect(tool).toMatchObject({
      kind: SERVER,
      status: 0,
      attributes: expect.objectContaining({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'ask_user_question_kandev',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2026-07-28',
        'jsonrpc.request.id': 'ask-2026',
      }),
    });
    expect(tool.attributes).not.toHaveProperty('mcp.session.id');
    expect(descends(ask, tool)).toBe(true);
    const mcpRequest = inTrace(agent.traceId).find((span) => span.kind === SERVER && span.parentSpanId === agent.parentId);
    expect(mcpRequest?.attributes['url.path']).toBe('/mcp/session');
    expect(descends(tool, mcpRequest as ReceivedSpan)).toBe(true);
  });

  it('a 2026-07-28 tool error is an error span naming tool_error', async () => {
    const fixture = await createRunningSession(server);
    const agent = agentContext();
    const reply = await ask2026(3, { questions: [] }, fixture.agentToken, agent.traceparent);
    expect(reply.status).toBe(200);
    expect(await reply.text()).toContain('VALIDATION_ERROR');
    const tool = await exported('the failed 2026 tools/call span', (span) => span.name === 'tools/call ask_user_question_kandev' && span.traceId === agent.traceId);
    expect(tool).toMatchObject({ status: 2, attributes: expect.objectContaining({ 'error.type': 'tool_error', 'jsonrpc.request.id': '3' }) });
  });

  it('a graceful shutdown with tracing on exits 0, its spans exported', async () => {
    const agent = agentContext();
    const fixture = await createRunningSession(server);
    await post('/api/v1/clarification/request', { session_id: fixture.sessionId, questions: TWO_QUESTIONS }, { authorization: `Bearer ${fixture.agentToken}`, traceparent: agent.traceparent });
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    expect(inTrace(agent.traceId).map((span) => span.name)).toContain('parley.ask');
  });
});
