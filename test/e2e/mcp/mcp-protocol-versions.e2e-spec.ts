/**
 * Both MCP endpoints on both protocol versions, driven by the v2 SDK's own client: pinned to
 * 2026-07-28 (stateless, no session, the `_meta` envelope on every request) and to 2025-11-25 (the
 * initialize handshake). Every tool keeps its name, arguments, results and errors on both.
 */
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, freshBundle, TWO_QUESTIONS } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';
import { gqlData } from '../../support/graphql.js';
import { connectMcp } from '../../support/mcp.js';
import { connectMcpV2, PROTOCOL_VERSIONS } from '../../support/mcp-v2.js';

const LIST = 'list_pending_questions_kandev';
const ANSWER = 'answer_question_kandev';
const LIST_TASKS = 'list_tasks_kandev';
const ASK = 'ask_user_question_kandev';
const ANSWERS = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'not today' },
];
/** What the agent gets for ANSWERS: the reference's shape, as on every protocol version. */
const ASK_RESULT = { db: { selected_option: 'sqlite' }, q2: { selected_option: 'q2_opt2', custom_text: 'not today' } };

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

async function pendingIdOfSession(sessionId: string): Promise<string> {
  return eventually(async () => {
    const { rows } = await t.db.query<{ pending_id: string }>(
      `SELECT metadata->>'pending_id' AS pending_id FROM task_session_messages WHERE task_session_id = $1 AND type = 'clarification_request' LIMIT 1`,
      [sessionId],
    );
    return rows[0]?.pending_id;
  });
}

describe.each(PROTOCOL_VERSIONS)('protocol %s with the v2 SDK client', (version) => {
  it('negotiates exactly this version', async () => {
    const mcp = await connectMcpV2(t.baseUrl, version);
    try {
      expect(mcp.client.getNegotiatedProtocolVersion()).toBe(version);
    } finally {
      await mcp.close();
    }
  });

  it('/mcp lists the same tools, with the same schemas, as the 1.x client sees', async () => {
    const [v2, v1] = [await connectMcpV2(t.baseUrl, version), await connectMcp(t.baseUrl)];
    try {
      const strip = (tools: Array<{ name: string; inputSchema: unknown; outputSchema?: unknown; annotations?: unknown }>) =>
        tools.map(({ name, inputSchema, outputSchema, annotations }) => ({ name, inputSchema, outputSchema, annotations }));
      expect(strip((await v2.client.listTools()).tools)).toEqual(strip((await v1.client.listTools()).tools));
    } finally {
      await v2.close();
      await v1.close();
    }
  });

  it('list_pending_questions_kandev, answer_question_kandev (winner, then loser) and list_tasks_kandev', async () => {
    const { pendingId, fixture } = await freshBundle(t);
    const mcp = await connectMcpV2(t.baseUrl, version);
    try {
      const listed = await mcp.call(LIST, { limit: 100 });
      expect(listed.isError).toBe(false);
      expect((listed.structured?.bundles as Array<{ pending_id: string }>).map((bundle) => bundle.pending_id)).toContain(pendingId);

      const won = await mcp.call(ANSWER, { pending_id: pendingId, answers: ANSWERS });
      expect(won.structured).toMatchObject({ claimed: true, status: 'answered' });
      const lost = await mcp.call(ANSWER, { pending_id: pendingId, answers: ANSWERS });
      expect(lost.structured).toMatchObject({ claimed: false, status: 'answered' });

      const tasks = await mcp.call(LIST_TASKS, { workspace_id: fixture.workspaceId });
      expect(tasks.isError).toBe(false);
    } finally {
      await mcp.close();
    }
  });

  it('bad input is a VALIDATION_ERROR naming the field, the same text as the 1.x client gets; an unknown tool is a protocol error', async () => {
    const [v2, v1] = [await connectMcpV2(t.baseUrl, version), await connectMcp(t.baseUrl)];
    try {
      const bad = await v2.call(ANSWER, { pending_id: 42 });
      expect(bad.isError).toBe(true);
      expect(JSON.parse(bad.text)).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(bad.text).toBe((await v1.call(ANSWER, { pending_id: 42 })).text);
      await expect(v2.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool/);
    } finally {
      await v2.close();
      await v1.close();
    }
  });

  /** Answers a bundle as a person would on each surface but the app (test/e2e/mcp/mcp-app.e2e-spec.ts). */
  const ANSWERED_ON = {
    REST: (pendingId: string) => request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200),
    GraphQL: (pendingId: string) =>
      gqlData(t, 'mutation($p: String!, $a: [AnswerInput!]!) { answerQuestion(pendingId: $p, answers: $a) { claimed } }', {
        p: pendingId,
        a: ANSWERS.map((answer) => ({ questionId: answer.question_id, selectedOptions: answer.selected_options, customText: answer.custom_text })),
      }),
  };

  it.each(Object.keys(ANSWERED_ON) as Array<keyof typeof ANSWERED_ON>)('/mcp/session: the ask blocks until the answer, given on %s, which it returns', async (surface) => {
    const fixture = await createRunningSession(t);
    const mcp = await connectMcpV2(t.baseUrl, version, { bearer: fixture.agentToken, path: '/mcp/session' });
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([ASK]);
      const asking = mcp.call(ASK, { questions: TWO_QUESTIONS });
      const pendingId = await pendingIdOfSession(fixture.sessionId);
      await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));
      await ANSWERED_ON[surface](pendingId);
      const answered = await asking;
      expect(answered.isError).toBe(false);
      expect(answered.structured).toEqual(ASK_RESULT);
    } finally {
      await mcp.close();
    }
  });
});

describe.each(PROTOCOL_VERSIONS)('an ask retried at %s after its call broke off', (version) => {
  async function bundleIdsOf(sessionId: string): Promise<string[]> {
    const { rows } = await t.db.query<{ pending_id: string }>(
      `SELECT DISTINCT metadata->>'pending_id' AS pending_id FROM task_session_messages WHERE task_session_id = $1 AND type = 'clarification_request'`,
      [sessionId],
    );
    return rows.map((row) => row.pending_id);
  }

  it('answered meanwhile: the same arguments get the one answer at once, and no second bundle', async () => {
    const fixture = await createRunningSession(t);
    const first = await connectMcpV2(t.baseUrl, version, { bearer: fixture.agentToken, path: '/mcp/session' });
    const gone = new AbortController();
    const broken = first.call(ASK, { questions: TWO_QUESTIONS, context: 'retry me' }, { signal: gone.signal }).then(
      () => 'answered',
      () => 'broken off',
    );
    const pendingId = await pendingIdOfSession(fixture.sessionId);
    await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));
    gone.abort();
    expect(await broken).toBe('broken off');
    await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 0 ? true : undefined));
    await first.close();

    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);
    const again = await connectMcpV2(t.baseUrl, version, { bearer: fixture.agentToken, path: '/mcp/session' });
    try {
      const retried = await again.call(ASK, { questions: TWO_QUESTIONS, context: 'retry me' });
      expect(retried.isError).toBe(false);
      expect(retried.structured).toEqual(ASK_RESULT);
      expect(await bundleIdsOf(fixture.sessionId)).toEqual([pendingId]);
    } finally {
      await again.close();
    }
  });
});

describe('2026-07-28 is stateless', () => {
  it('no Mcp-Session-Id is issued and a bare request carrying the envelope is served on its own', async () => {
    const res = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bare', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as { result: { tools: Array<{ name: string }> } };
    expect(body.result.tools.map((tool) => tool.name).sort()).toEqual([ANSWER, LIST, LIST_TASKS, 'show_question', 'answer_question_in_app'].sort());
  });
});
