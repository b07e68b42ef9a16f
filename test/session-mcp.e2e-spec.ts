import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startApp, type TestApp } from './support/app.js';
import { createRunningSession, TWO_QUESTIONS } from './support/fixtures.js';

async function sessionClient(t: TestApp, agentToken: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/session`), {
    requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
  });
  await client.connect(transport);
  return client;
}

describe('exp', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { askProgressIntervalMs: 100 } });
  });
  afterAll(async () => {
    await t.close();
  });
  it('abort', async () => {
    const fixture = await createRunningSession(t);
    const client = await sessionClient(t, fixture.agentToken);
    const controller = new AbortController();
    const call = client.callTool({ name: 'ask_user_question_kandev', arguments: { questions: TWO_QUESTIONS } }, undefined, { signal: controller.signal, timeout: 20000 });
    await new Promise((r) => setTimeout(r, 500));
    controller.abort();
    await expect(call).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 1000));
    const { rows } = await t.db.query(`SELECT metadata FROM task_session_messages WHERE task_session_id = $1`, [fixture.sessionId]);
    expect(rows.map((r) => r.metadata.agent_disconnected)).toEqual([true, true]);
    await client.close();
  });
});
