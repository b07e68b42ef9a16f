import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';

const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'now' },
];

/** DESIGN "Embedded default and scale-out": replicas share one PostgreSQL; a winning claim on one reaches a waiter held by another. */
describe('cross-replica delivery (LISTEN/NOTIFY)', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startApp({ config: { deliveryConfirmTimeoutMs: 1000 } });
    b = await startApp({ databaseUrl: a.databaseUrl, config: { deliveryConfirmTimeoutMs: 1000 } });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const pendingOf = (sessionId: string) =>
    eventually(async () => {
      const { rows } = await a.db.query(
        `SELECT metadata->>'pending_id' AS pending_id FROM task_session_messages
          WHERE task_session_id = $1 AND type = 'clarification_request' LIMIT 1`,
        [sessionId],
      );
      return rows[0]?.pending_id as string | undefined;
    });
  const presence = async (pendingId: string) =>
    (await a.db.query(`SELECT process_id FROM clarification_waiters WHERE pending_id = $1`, [pendingId])).rows.length;
  const resumePrompts = async (sessionId: string) =>
    (await a.db.query(`SELECT 1 FROM task_session_messages WHERE task_session_id = $1 AND type = 'resume_prompt'`, [sessionId])).rows.length;

  it('an agent blocked in ask_user_question_kandev on replica A gets the answer given on replica B, in the same turn', async () => {
    const fixture = await createRunningSession(a);
    const agent = new Client({ name: 'agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${a.baseUrl}/mcp/session`), {
        requestInit: { headers: { authorization: `Bearer ${fixture.agentToken}` } },
      }),
    );
    const call = agent.callTool({ name: 'ask_user_question_kandev', arguments: { questions: TWO_QUESTIONS } }, undefined, { timeout: 15_000 });
    const pendingId = await pendingOf(fixture.sessionId);
    await eventually(async () => ((await presence(pendingId)) === 1 ? true : undefined));

    const res = await request(b.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS, rejected: false }).expect(200);
    expect(res.body).toMatchObject({ success: true, claimed: true, status: 'answered' });

    const result = await call;
    expect(result.isError).toBeFalsy();
    // The reference's frozen ask result (mcp-ask-result.e2e-spec.ts).
    expect(result.structuredContent).toEqual({ db: { selected_option: 'pg' }, q2: { selected_option: 'q2_opt1', custom_text: 'now' } });
    expect(await resumePrompts(fixture.sessionId)).toBe(0);
    const { rows } = await a.db.query(`SELECT metadata FROM task_session_messages WHERE metadata->>'pending_id' = $1`, [pendingId]);
    rows.forEach((row) => expect(row.metadata).not.toHaveProperty('response_delivery_pending'));
    expect(await presence(pendingId)).toBe(0);
    expect((await a.db.query(`SELECT 1 FROM clarification_handoffs`)).rows).toEqual([]);
    await agent.close();
  });

  it('a long poll on replica B is woken by a rejection claimed on replica A, with the reason', async () => {
    const fixture = await createRunningSession(a);
    const ask = await request(a.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    const pendingId = ask.body.pending_id as string;
    // Auth is disabled: a long poll stands for the agent (its wait consumes the answer).
    const waiting = request(b.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`);
    const waited = waiting.then((res) => res);
    await eventually(async () => ((await presence(pendingId)) === 1 ? true : undefined));
    await request(a.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ rejected: true, reject_reason: 'not now' }).expect(200);
    const woken = await waited;
    expect(woken.status).toBe(200);
    expect(woken.body).toMatchObject({ pending_id: pendingId, answers: [], rejected: true, reject_reason: 'not now' });
  });

  it('presence of a process whose lease expired is ignored: the agent is resumed at once', async () => {
    const fixture = await createRunningSession(a);
    const ask = await request(a.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    const pendingId = ask.body.pending_id as string;
    const dead = `gone-${randomUUID()}`;
    await a.db.query(`INSERT INTO parley_processes (id, expires_at) VALUES ($1, clock_timestamp() - interval '1 second')`, [dead]);
    await a.db.query(`INSERT INTO clarification_waiters (pending_id, process_id) VALUES ($1, $2)`, [pendingId, dead]);
    const res = await request(b.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS, rejected: false }).expect(200);
    expect(res.body).toMatchObject({ claimed: true, status: 'answered' });
    expect(await resumePrompts(fixture.sessionId)).toBe(1);
  });

  it('presence of a live process that never takes the hand-off costs the bound, then the winner resumes the agent itself (nothing lost)', async () => {
    const fixture = await createRunningSession(a);
    const ask = await request(a.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    const pendingId = ask.body.pending_id as string;
    const silent = `silent-${randomUUID()}`;
    await a.db.query(`INSERT INTO parley_processes (id, expires_at) VALUES ($1, clock_timestamp() + interval '1 hour')`, [silent]);
    await a.db.query(`INSERT INTO clarification_waiters (pending_id, process_id) VALUES ($1, $2)`, [pendingId, silent]);
    const started = Date.now();
    const res = await request(b.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS, rejected: false }).expect(200);
    expect(res.body).toMatchObject({ claimed: true, status: 'answered' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(await resumePrompts(fixture.sessionId)).toBe(1);
    expect((await a.db.query(`SELECT 1 FROM clarification_handoffs`)).rows).toEqual([]);
  });

  it('a waiter that stops waiting withdraws its presence', async () => {
    const fixture = await createRunningSession(a);
    const ask = await request(a.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    const pendingId = ask.body.pending_id as string;
    // A connection of its own (not a pooled keep-alive one), closed by the client mid-wait.
    const waiting = http.get(`${a.baseUrl}/api/v1/clarification/${pendingId}/wait`, { agent: false });
    waiting.on('error', () => undefined);
    await eventually(async () => ((await presence(pendingId)) === 1 ? true : undefined));
    waiting.destroy();
    await eventually(async () => ((await presence(pendingId)) === 0 ? true : undefined));
  });
});
