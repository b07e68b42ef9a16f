import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { WinnerDelivery } from '#clarification/testing';
import { startApp, type TestApp } from '../../support/app.js';
import { claimAndDeliver } from '../../support/claim.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';

async function sessionClient(t: TestApp, agentToken: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/session`), {
    requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
  });
  await client.connect(transport);
  return client;
}

describe('ask_user_question_kandev on /mcp/session (baseline "Delivery after a winning claim")', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { askProgressIntervalMs: 100 } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('blocks, sends progress, and returns the answer delivered through the claim', async () => {
    const fixture = await createRunningSession(t);
    const client = await sessionClient(t, fixture.agentToken);
    const progress: number[] = [];
    const call = client.callTool(
      { name: 'ask_user_question_kandev', arguments: { questions: TWO_QUESTIONS, context: 'setting up' } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), resetTimeoutOnProgress: true, timeout: 10_000 },
    );
    const pendingId = await eventually(async () => {
      const { rows } = await t.db.query(
        `SELECT metadata->>'pending_id' AS pending_id FROM task_session_messages WHERE task_session_id = $1 LIMIT 1`,
        [fixture.sessionId],
      );
      return rows[0]?.pending_id as string | undefined;
    });
    await eventually(() => (progress.length >= 2 ? true : undefined));
    const session = await request(t.baseUrl).get(`/api/v1/sessions/${fixture.sessionId}`).expect(200);
    expect(session.body.state).toBe('WAITING_FOR_INPUT');

    const answers = [
      { question_id: 'db', selected_options: ['pg'], custom_text: '' },
      { question_id: 'q2', selected_options: [], custom_text: 'tomorrow' },
    ];
    const won = await claimAndDeliver(t, pendingId, { answers });
    expect(won?.delivery).toBe(WinnerDelivery.LiveWaiter);

    const result = await call;
    expect(result.isError).toBeFalsy();
    // The reference's frozen shape (mcp-ask-result.e2e-spec.ts covers it case by case).
    expect(result.structuredContent).toEqual({ db: { selected_option: 'pg' }, q2: { custom_text: 'tomorrow' } });
    const { rows } = await t.db.query(
      `SELECT metadata FROM task_session_messages WHERE metadata->>'pending_id' = $1 ORDER BY (metadata->>'question_index')::int`,
      [pendingId],
    );
    expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
    expect(rows.map((row) => row.metadata.response_delivery_pending)).toEqual([undefined, undefined]);
    const after = await request(t.baseUrl).get(`/api/v1/sessions/${fixture.sessionId}`).expect(200);
    expect(after.body.state).toBe('RUNNING');
    await client.close();
  });
});
