import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, createUser, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gqlData } from '../../support/graphql.js';

/**
 * `expires_in_seconds` when asking (REST and the in-session MCP ask). At the
 * deadline the bundle expires, the agent's blocked call ends with a typed EXPIRED result (never a
 * silent proceed), a late answer gets the inactive 409, and the EXPIRED event is published. Without
 * it nothing changes; an answer in time wins and the deadline then does nothing.
 */
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

describe('question deadlines', () => {
  let t: TestApp;
  let alice: { id: string; token: string };
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', ...QUIET_LEASE, deadlineSweepIntervalMs: 50 } });
    alice = await createUser(t, 'alice');
  });
  afterAll(async () => {
    await t.close();
  });

  function ask(fixture: SessionFixture, extra: Record<string, unknown> = {}): request.Test {
    return request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set(as(alice.token))
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS, ...extra });
  }

  async function eventsOf(pendingId: string): Promise<Array<{ type: string; payload: Record<string, unknown> }>> {
    const { rows } = await t.db.query(`SELECT type, payload FROM question_events WHERE pending_id = $1 ORDER BY id`, [pendingId]);
    return rows;
  }

  it('REST: the agent waiting on /wait gets a typed 409 at the deadline; a late answer gets 409; EXPIRED is published', async () => {
    const fixture = await createRunningSession(t, { bearer: alice.token });
    await request(t.baseUrl)
      .post(`/api/v1/workspaces/${fixture.workspaceId}/webhooks`)
      .set(as(alice.token))
      .send({ url: 'https://hooks.example/expired', events: ['expired'] })
      .expect(201);
    const asked = await ask(fixture, { expires_in_seconds: 1 }).expect(200);
    const pendingId = asked.body.pending_id as string;
    const before = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set(as(alice.token)).expect(200);
    expect(before.body.status).toBe('pending');
    const expiresAt = before.body.expires_at as string;
    expect(Date.parse(expiresAt)).not.toBeNaN();

    const waited = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).set(as(fixture.agentToken));
    expect(waited.status).toBe(409);
    expect(waited.body.error).toBe(
      `the question expired unanswered at its deadline (${expiresAt}); pending_id ${pendingId} — do not proceed as if it were answered`,
    );
    // Waiting again after the fact: the same typed result.
    const again = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).set(as(fixture.agentToken)).expect(409);
    expect(again.body).toEqual(waited.body);

    const late = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set(as(alice.token)).send({ answers: ANSWERS }).expect(409);
    expect(late.body).toEqual({ error: 'clarification request is no longer active', code: 'CONFLICT' });
    const after = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set(as(alice.token)).expect(200);
    expect(after.body).toMatchObject({ status: 'expired', response: null, resolved_by: null, expires_at: expiresAt });

    const events = await eventsOf(pendingId);
    expect(events.map((event) => event.type)).toEqual(['ASKED', 'EXPIRED']);
    expect(events[0]?.payload.expires_at).toBe(expiresAt);
    expect(events[1]?.payload).toMatchObject({ reason: 'deadline' });
    // …and offered to the workspace's `expired` webhooks by the expiry's own transaction.
    const outbox = await t.db.query(`SELECT event_type FROM webhook_deliveries WHERE pending_id = $1`, [pendingId]);
    expect(outbox.rows).toEqual([{ event_type: 'EXPIRED' }]);
    const session = await request(t.baseUrl).get(`/api/v1/sessions/${fixture.sessionId}`).set(as(alice.token)).expect(200);
    expect(session.body.state).toBe('RUNNING');
    const { rows } = await t.db.query(`SELECT 1 FROM clarification_deadlines WHERE pending_id = $1`, [pendingId]);
    expect(rows).toEqual([]);
  });

  it('MCP: the blocked in-session ask fails with code EXPIRED', async () => {
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/session`), { requestInit: { headers: { authorization: `Bearer ${fixture.agentToken}` } } }),
    );
    try {
      const result = await client.callTool({ name: 'ask_user_question_kandev', arguments: { questions: TWO_QUESTIONS, expires_in_seconds: 1 } }, undefined, {
        timeout: 30_000,
      });
      expect(result.isError).toBe(true);
      const content = (result.content as Array<{ type: string; text: string }>)[0];
      const error = JSON.parse(content?.text ?? '{}') as { code: string; message: string };
      expect(error.code).toBe('EXPIRED');
      expect(error.message).toMatch(/^the question expired unanswered at its deadline \(.+\); pending_id .+ — do not proceed as if it were answered$/);

      const invalid = await client.callTool({ name: 'ask_user_question_kandev', arguments: { questions: TWO_QUESTIONS, expires_in_seconds: 0 } });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toContain('expires_in_seconds');
    } finally {
      await client.close();
    }
  });

  it('an answer before the deadline wins, and the deadline then changes nothing', async () => {
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const pendingId = (await ask(fixture, { expires_in_seconds: 1 }).expect(200)).body.pending_id as string;
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set(as(alice.token)).send({ answers: ANSWERS }).expect(200);
    // The sweep handles the deadline once due: the row goes, the bundle stays answered.
    await eventually(async () => ((await t.db.query(`SELECT 1 FROM clarification_deadlines WHERE pending_id = $1`, [pendingId])).rows.length === 0 ? true : undefined), 10_000, 'the deadline handled');
    const after = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set(as(alice.token)).expect(200);
    expect(after.body.status).toBe('answered');
    expect((await eventsOf(pendingId)).map((event) => event.type)).toEqual(['ASKED', 'ANSWERED']);
  });

  it('without expires_in_seconds nothing changes: no deadline, expires_at null on REST and GraphQL', async () => {
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const pendingId = (await ask(fixture).expect(200)).body.pending_id as string;
    const bundle = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set(as(alice.token)).expect(200);
    expect(bundle.body).toMatchObject({ status: 'pending', expires_at: null });
    expect((await t.db.query(`SELECT 1 FROM clarification_deadlines WHERE pending_id = $1`, [pendingId])).rows).toEqual([]);
    const viaGraphql = await gqlData<{ question: { expiresAt: string | null } }>(t, `query ($id: String!) { question(pendingId: $id) { expiresAt } }`, { id: pendingId }, alice.token);
    expect(viaGraphql.question.expiresAt).toBeNull();
    expect((await eventsOf(pendingId))[0]?.payload).not.toHaveProperty('expires_at');
  });

  it.each([[0], [-5], [1.5], ['60'], [2_592_001]])('expires_in_seconds %p is a 400 naming the field, and asks nothing', async (value) => {
    const fixture = await createRunningSession(t, { bearer: alice.token });
    const bad = await ask(fixture, { expires_in_seconds: value }).expect(400);
    expect(bad.body.error).toMatch(/^expires_in_seconds /);
    const { rows } = await t.db.query(`SELECT 1 FROM clarification_bundles WHERE session_id = $1`, [fixture.sessionId]);
    expect(rows).toEqual([]);
  });
});
