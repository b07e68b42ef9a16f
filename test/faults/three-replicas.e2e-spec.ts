/**
 * Three replicas (real server processes) on one database. The three answering
 * surfaces race, each on another replica, against a flaky resume webhook — with and without the
 * agent waiting live on a fourth party's replica; a live wait on one replica is woken by an answer
 * on another; a cancel on replica C wakes waits on replicas A and B.
 */
import request from 'supertest';
import { rowsOf, resumeTurns } from '../support/bundle-state.js';
import { createTestDatabase, openPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../support/fixtures.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';
import { checkRound } from '../support/race.js';
import { startReplica } from '../support/replicas.js';
import { killAllServers, type ServerProcess } from '../support/server-process.js';
import { ANSWERS, type Outcome, type Submission, submit, type Surface, type SurfaceClient, SURFACES } from '../support/surfaces.js';
import { flaky, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const REPLICA_ENV = { RESUME_TIMEOUT_MS: '3000', DELIVERY_CONFIRM_TIMEOUT_MS: '3000', WAIT_TIMEOUT_MS: '30000' };

describe('three replicas on one database', () => {
  let databaseUrl: string;
  let db: ReturnType<typeof openPool>;
  let a: ServerProcess;
  let b: ServerProcess;
  let c: ServerProcess;
  let webhook: WebhookReceiver;
  const mcps: McpConnection[] = [];
  /** Each surface served by another replica: REST by A, GraphQL by B, MCP by C. */
  let clients: Record<Surface, SurfaceClient>;
  const wins: Record<Surface | 'none', number> = { rest: 0, graphql: 0, mcp: 0, none: 0 };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 4);
    webhook = await startWebhookReceiver(flaky);
    [a, b, c] = await Promise.all([startReplica(databaseUrl, REPLICA_ENV), startReplica(databaseUrl, REPLICA_ENV), startReplica(databaseUrl, REPLICA_ENV)]);
    const connections = await Promise.all([a, b, c].map((server) => connectMcp(server.baseUrl)));
    mcps.push(...connections);
    clients = {
      rest: { baseUrl: a.baseUrl, mcp: connections[0] },
      graphql: { baseUrl: b.baseUrl, mcp: connections[1] },
      mcp: { baseUrl: c.baseUrl, mcp: connections[2] },
    };
  });
  afterAll(async () => {
    process.stdout.write(`three-replica race winners (information only): ${JSON.stringify(wins)}\n`);
    await Promise.all(mcps.map((mcp) => mcp.close()));
    await killAllServers();
    await webhook.close();
    await db.end();
  });

  async function bundleOn(server: ServerProcess, resumeUrl?: string): Promise<string> {
    const fixture = await createRunningSession(server, resumeUrl ? { resumeUrl } : {});
    const res = await request(server.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    return res.body.pending_id as string;
  }

  /** A live wait on `server` (auth disabled: the agent's), attached once its presence is recorded. */
  async function waitOn(server: ServerProcess, pendingId: string, agents: number): Promise<{ reply: Promise<request.Response> }> {
    const reply = request(server.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).then((res) => res);
    await eventually(async () => {
      const { rows } = await db.query(`SELECT 1 FROM clarification_waiters WHERE pending_id = $1`, [pendingId]);
      return rows.length === agents ? true : undefined;
    });
    return { reply };
  }

  it('REST on A, GraphQL on B, MCP on C race against a flaky webhook: one winner per round, every loser told the answer finally stored', async () => {
    for (let index = 0; index < 8; index += 1) {
      const pendingId = await bundleOn(a, webhook.url);
      const submissions = Object.fromEntries(
        SURFACES.map((surface) => [
          surface,
          index % 4 === 3 && surface === SURFACES[index % 3] ? { kind: 'reject', reason: `no (${surface})` } : { kind: 'answer', answers: ANSWERS[surface] },
        ]),
      ) as Record<Surface, Submission>;
      const outcomes = await Promise.all(
        SURFACES.map(async (surface) => [surface, await submit(surface, clients[surface], pendingId, submissions[surface])] as [Surface, Outcome]),
      );
      const rows = await rowsOf(db, pendingId);
      wins[checkRound({ outcomes, rows, submissions }) ?? 'none'] += 1;
      const accepted = webhook.postsFor(pendingId).filter((post) => post.status >= 200 && post.status < 300);
      const answered = rows[0]?.status === 'answered';
      expect(accepted).toHaveLength(answered ? 1 : 0);
      expect(await resumeTurns(db, pendingId)).toEqual(answered ? [accepted[0]?.idempotencyKey] : []);
    }
  });

  it('the same race while the agent waits live on A: the winner’s answer reaches that wait, nobody is resumed', async () => {
    for (let index = 0; index < 6; index += 1) {
      const pendingId = await bundleOn(b, webhook.url);
      const agent = await waitOn(a, pendingId, 1);
      const submissions = Object.fromEntries(SURFACES.map((surface) => [surface, { kind: 'answer', answers: ANSWERS[surface] }])) as Record<Surface, Submission>;
      const outcomes = await Promise.all(
        SURFACES.map(async (surface) => [surface, await submit(surface, clients[surface], pendingId, submissions[surface])] as [Surface, Outcome]),
      );
      const rows = await rowsOf(db, pendingId);
      const winner = checkRound({ outcomes, rows, submissions });
      expect(winner).toBeDefined();
      const delivered = await agent.reply;
      expect(delivered.status).toBe(200);
      expect(delivered.body).toMatchObject({ pending_id: pendingId, answers: ANSWERS[winner as Surface] });
      expect(webhook.postsFor(pendingId)).toEqual([]);
      expect(await resumeTurns(db, pendingId)).toEqual([]);
    }
  });

  it('the agent waits on A, the answer comes through B and A’s confirmation fails: B’s caller gets the retryable 500, the agent keeps waiting, a retry through C reaches it', async () => {
    const pendingId = await bundleOn(b);
    const agent = await waitOn(a, pendingId, 1);
    let told = false;
    void agent.reply.then(() => (told = true));
    await db.query(`
      CREATE OR REPLACE FUNCTION test_refuse_confirmation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.metadata->>'pending_id' = TG_ARGV[0] AND OLD.metadata ? 'response_delivery_pending'
           AND NOT NEW.metadata ? 'response_delivery_pending' AND NEW.metadata->>'status' = 'answered' THEN
          RAISE EXCEPTION 'test: the delivery confirmation fails';
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER test_refuse_confirmation BEFORE UPDATE ON task_session_messages FOR EACH ROW EXECUTE FUNCTION test_refuse_confirmation('${pendingId}')`);
    const failed = await submit('rest', { ...clients.rest, baseUrl: b.baseUrl }, pendingId, { kind: 'answer', answers: ANSWERS.rest });
    await db.query(`DROP TRIGGER test_refuse_confirmation ON task_session_messages`);
    await db.query(`DROP FUNCTION test_refuse_confirmation()`);

    expect(failed).toMatchObject({ kind: 'error', code: '500', message: expect.stringMatching(/pending again and the answer can be retried$/) });
    expect(told).toBe(false);
    expect((await rowsOf(db, pendingId)).map((row) => [row.status, 'response' in row, 'response_delivery_pending' in row])).toEqual([
      ['pending', false, false],
      ['pending', false, false],
    ]);

    const retried = await submit('mcp', clients.mcp, pendingId, { kind: 'answer', answers: ANSWERS.mcp });
    expect(retried).toMatchObject({ kind: 'resolved', envelope: { claimed: true, status: 'answered' } });
    const delivered = await agent.reply;
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ pending_id: pendingId, answers: ANSWERS.mcp });
    expect(await resumeTurns(db, pendingId)).toEqual([]);
  });

  it('a cancel on replica C wakes the waits held on replicas A and B', async () => {
    const pendingId = await bundleOn(a);
    const onA = await waitOn(a, pendingId, 1);
    const onB = await waitOn(b, pendingId, 2);

    await request(c.baseUrl).post(`/api/v1/clarification/${pendingId}/cancel`).expect(200);

    for (const waited of [await onA.reply, await onB.reply]) {
      expect({ status: waited.status, body: waited.body }).toEqual({ status: 504, body: { error: 'clarification wait ended: the question was cancelled', code: 'WAIT_ENDED' } });
    }
    expect((await rowsOf(db, pendingId)).map((row) => row.status)).toEqual(['cancelled', 'cancelled']);
  });
});
