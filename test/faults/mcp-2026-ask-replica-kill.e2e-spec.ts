/**
 * A 2026-07-28 session agent (the v2 SDK client, stateless) blocked in ask_user_question_kandev on
 * replica A, which is killed with kill -9 while it waits. The agent calls again with the same
 * arguments on replica B: it waits on the same bundle (never a second one), and the one answer,
 * given on REST, reaches it there.
 */
import request from 'supertest';
import { presence } from '../support/bundle-state.js';
import { createTestDatabase, openPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../support/fixtures.js';
import { connectMcpV2, type V2Connection } from '../support/mcp-v2.js';
import { startReplica } from '../support/replicas.js';
import { killAllServers, killServer, type ServerProcess } from '../support/server-process.js';

const ASK = 'ask_user_question_kandev';
const ANSWERS = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'after the crash' },
];

describe('a 2026-07-28 ask whose replica dies while it waits', () => {
  let databaseUrl: string;
  let db: ReturnType<typeof openPool>;
  let a: ServerProcess;
  let b: ServerProcess;
  const agents: V2Connection[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 4);
    [a, b] = await Promise.all([startReplica(databaseUrl), startReplica(databaseUrl)]);
  });
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
    await killAllServers();
    await db.end();
  });

  async function bundlesOf(sessionId: string): Promise<string[]> {
    const { rows } = await db.query<{ pending_id: string }>(
      `SELECT DISTINCT metadata->>'pending_id' AS pending_id FROM task_session_messages WHERE task_session_id = $1 AND type = 'clarification_request'`,
      [sessionId],
    );
    return rows.map((row) => row.pending_id);
  }

  it('retried with the same arguments on replica B, it gets the one answer; one bundle only', async () => {
    const fixture = await createRunningSession({ baseUrl: a.baseUrl });
    const onA = await connectMcpV2(a.baseUrl, '2026-07-28', { bearer: fixture.agentToken, path: '/mcp/session' });
    agents.push(onA);
    const first = onA.call(ASK, { questions: TWO_QUESTIONS }).then(
      () => 'answered on A',
      () => 'broken off',
    );
    const [pendingId] = await eventually(async () => {
      const ids = await bundlesOf(fixture.sessionId);
      return ids.length === 1 ? ids : undefined;
    });
    const [processA] = await eventually(async () => {
      const holders = await presence(db, pendingId);
      return holders.length === 1 ? holders : undefined;
    });

    await killServer(a);
    expect(await first).toBe('broken off');

    const onB = await connectMcpV2(b.baseUrl, '2026-07-28', { bearer: fixture.agentToken, path: '/mcp/session' });
    agents.push(onB);
    const retried = onB.call(ASK, { questions: TWO_QUESTIONS });
    // B holds the agent's wait (A's presence may linger until its lease expires).
    await eventually(async () => ((await presence(db, pendingId)).some((holder) => holder !== processA) ? true : undefined));
    expect(await bundlesOf(fixture.sessionId)).toEqual([pendingId]);

    const answered = await request(b.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);
    expect(answered.body).toMatchObject({ claimed: true });
    const result = await retried;
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({ db: { selected_option: 'sqlite' }, q2: { selected_option: 'q2_opt2', custom_text: 'after the crash' } });
    expect(await bundlesOf(fixture.sessionId)).toEqual([pendingId]);
    // Reading the bundle by its pending_id, on the surviving replica, tells the same one answer.
    const read = await request(b.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200);
    expect(read.body).toMatchObject({ status: 'answered' });
  });
});
