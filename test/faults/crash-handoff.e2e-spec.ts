/**
 * Exactly-once resume across a crash. Two replicas, A and B, on one database (real
 * server processes); A is stopped for good at one step of the hand-off (PARLEY_TEST_PAUSE_AT) and
 * killed with kill -9 there. B — with no restart, within A's lease expiry — carries the hand-off to
 * its end: it re-sends the resume with the SAME Idempotency-Key (the successor turn id, = body.turn_id)
 * or queues the prompt, or, when the answer was on its way to a live agent, restores the bundle to
 * pending. An answered bundle never ends with neither an accepted resume nor a queued resume_prompt,
 * and the receipt A's claim signed is the one B hands on and every later caller is told.
 */
import request from 'supertest';
import { eventTypes, isActive, isRestored, latestPendingId, presence, resumePrompts, resumeTurns, rowsOf, settlement } from '../support/bundle-state.js';
import { createTestDatabase, openPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../support/fixtures.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';
import { LEASE_TTL_MS, pausedAt, startReplica } from '../support/replicas.js';
import { killAllServers, killServer, type ServerProcess } from '../support/server-process.js';
import { accept, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const FIRST = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'before the crash' },
];
const AGAIN = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'after the crash' },
];
/** How long B may take to finish A's hand-off: A's lease expiry plus B's sweep cadence and some slack. */
const TAKE_OVER_WITHIN_MS = LEASE_TTL_MS * 2 + 4_000;

describe('a kill -9 at each step of the hand-off, and replica B finishing it', () => {
  let databaseUrl: string;
  let db: ReturnType<typeof openPool>;
  let b: ServerProcess;
  let webhook: WebhookReceiver;
  const agents: McpConnection[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 4);
    webhook = await startWebhookReceiver(accept);
    b = await startReplica(databaseUrl, { DELIVERY_CONFIRM_TIMEOUT_MS: '2000' });
  });
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
    await killAllServers();
    await webhook.close();
    await db.end();
  });

  /** Asks through `server` (REST) on a fresh running session. */
  async function bundleOn(server: ServerProcess, resumeUrl?: string): Promise<{ sessionId: string; pendingId: string; agentToken: string }> {
    const fixture = await createRunningSession(server, resumeUrl ? { resumeUrl } : {});
    const res = await request(server.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    return { sessionId: fixture.sessionId, pendingId: res.body.pending_id as string, agentToken: fixture.agentToken };
  }

  /** Answers through `server` without waiting for the reply (the server may be killed first). */
  function answerOn(server: ServerProcess, pendingId: string, answers = FIRST): Promise<request.Response | Error> {
    return request(server.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .send({ answers })
      .then(
        (res) => res,
        (error: Error) => error,
      );
  }

  const receiptOf = (rows: Awaited<ReturnType<typeof rowsOf>>) => rows.map((row) => row.receipt).find((receipt) => typeof receipt === 'string');

  /**
   * The receipt A's claim signed outlived A: unchanged on the rows, in B's resume, in what B reports
   * and tells a late answerer, and valid by B's keys (one key set for every replica).
   */
  async function expectReceiptSurvived(pendingId: string, receipt: unknown): Promise<void> {
    expect(receiptOf(await rowsOf(db, pendingId))).toBe(receipt);
    const resumed = webhook.postsFor(pendingId).at(-1);
    expect(resumed?.body.receipt).toBe(receipt);
    expect((await request(b.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200)).body.receipt).toBe(receipt);
    const late = await answerOn(b, pendingId, AGAIN);
    expect(late).not.toBeInstanceOf(Error);
    expect((late as request.Response).body).toMatchObject({ claimed: false, receipt });
    const verdict = await request(b.baseUrl).post('/api/v1/receipts/verify').send({ receipt }).expect(200);
    expect(verdict.body).toMatchObject({ valid: true, claims: { sub: pendingId, outcome: 'answered' } });
  }

  const finalOrUndefined = async (pendingId: string) => (settlement(await rowsOf(db, pendingId)) === 'final' ? true : undefined);

  /** Every POST of the bundle carried the successor turn's id as its Idempotency-Key and as body.turn_id. */
  function expectOneKey(pendingId: string, successor: string): void {
    const posts = webhook.postsFor(pendingId);
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.map((post) => [post.idempotencyKey, post.body.turn_id])).toEqual(posts.map(() => [successor, successor]));
    expect(posts.some((post) => post.status >= 200 && post.status < 300)).toBe(true);
  }

  it.each([
    ['claim.committed', 0],
    ['resume.accepted', 1],
  ])('killed at %s: B re-sends the resume with the same Idempotency-Key and finalizes it', async (point, postsBeforeKill) => {
    const a = await startReplica(databaseUrl, { PARLEY_TEST_PAUSE_AT: point });
    const { pendingId } = await bundleOn(a, webhook.url);
    const replied = answerOn(a, pendingId);
    await pausedAt(a, point);

    // The claim committed under A's ownership, with its successor turn attempted and its receipt signed.
    const claimed = await rowsOf(db, pendingId);
    expect(settlement(claimed)).toBe('delivering');
    const receipt = receiptOf(claimed);
    expect(receipt).toEqual(expect.any(String));
    const successors = await resumeTurns(db, pendingId);
    expect(successors).toHaveLength(1);
    const successor = successors[0];
    expect(webhook.postsFor(pendingId)).toHaveLength(postsBeforeKill);

    await killServer(a);
    await replied;
    await eventually(() => finalOrUndefined(pendingId), TAKE_OVER_WITHIN_MS, 'B finishing the hand-off');

    expectOneKey(pendingId, successor);
    expect(webhook.postsFor(pendingId)).toHaveLength(postsBeforeKill + 1);
    const rows = await rowsOf(db, pendingId);
    expect(rows.map((row) => [row.status, row.response])).toEqual(FIRST.map((answer) => ['answered', answer]));
    expect(await resumeTurns(db, pendingId)).toEqual([successor]);
    expect(await resumePrompts(db, pendingId)).toEqual([]);
    expect(await eventTypes(db, pendingId)).toEqual(['ASKED', 'ANSWERED']);
    await expectReceiptSurvived(pendingId, receipt);
  });

  it('killed at claim.committed with no webhook configured on B: B queues the resume prompt on the same successor turn', async () => {
    // Only A knows a server-wide webhook; the session has no resume_url of its own.
    const a = await startReplica(databaseUrl, { PARLEY_TEST_PAUSE_AT: 'claim.committed', RESUME_WEBHOOK_URL: webhook.url });
    const { pendingId } = await bundleOn(a);
    const replied = answerOn(a, pendingId);
    await pausedAt(a, 'claim.committed');
    const [successor] = await resumeTurns(db, pendingId);
    expect(successor).toBeDefined();

    await killServer(a);
    await replied;
    await eventually(() => finalOrUndefined(pendingId), TAKE_OVER_WITHIN_MS, 'B queuing the prompt');

    expect(webhook.postsFor(pendingId)).toEqual([]);
    expect(await resumePrompts(db, pendingId)).toEqual([successor]);
    expect(await resumeTurns(db, pendingId)).toEqual([successor]);
    expect((await rowsOf(db, pendingId)).map((row) => row.response)).toEqual(FIRST);
    expect(await eventTypes(db, pendingId)).toEqual(['ASKED', 'ANSWERED']);
  });

  /** The agent blocks in ask_user_question_kandev on `server` (its in-session MCP surface). */
  async function agentAsksOn(server: ServerProcess): Promise<{ pendingId: string; sessionId: string }> {
    const fixture = await createRunningSession(server, { resumeUrl: webhook.url });
    const agent = await connectMcp(server.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' });
    agents.push(agent);
    void agent.client
      .callTool({ name: 'ask_user_question_kandev', arguments: { questions: TWO_QUESTIONS } }, undefined, { timeout: 120_000 })
      .catch(() => undefined);
    const pendingId = await eventually(() => latestPendingId(db, fixture.sessionId), 10_000, 'the agent’s bundle');
    await eventually(async () => ((await presence(db, pendingId)).length === 1 ? true : undefined), 10_000, 'the agent’s presence');
    return { pendingId, sessionId: fixture.sessionId };
  }

  it('killed at deliver.offered (answered on A, the agent waiting on A): B restores the bundle to pending; answered again, the agent is resumed', async () => {
    const a = await startReplica(databaseUrl, { PARLEY_TEST_PAUSE_AT: 'deliver.offered' });
    const { pendingId } = await agentAsksOn(a);
    const replied = answerOn(a, pendingId);
    await pausedAt(a, 'deliver.offered');
    expect(settlement(await rowsOf(db, pendingId))).toBe('delivering');

    await killServer(a);
    await replied;
    await eventually(async () => (isRestored(await rowsOf(db, pendingId)) ? true : undefined), TAKE_OVER_WITHIN_MS, 'B restoring the bundle');
    expect(await isActive(db, pendingId)).toBe(true);
    expect(await resumeTurns(db, pendingId)).toEqual([]);
    expect(webhook.postsFor(pendingId)).toEqual([]);

    // Nobody waits any more: the next answer resumes the agent, once.
    const again = await answerOn(b, pendingId, AGAIN);
    expect(again).not.toBeInstanceOf(Error);
    expect((again as request.Response).body).toMatchObject({ claimed: true, status: 'answered' });
    const [successor] = await resumeTurns(db, pendingId);
    expectOneKey(pendingId, successor);
    expect(webhook.postsFor(pendingId)).toHaveLength(1);
    expect((await rowsOf(db, pendingId)).map((row) => row.response)).toEqual(AGAIN);
    expect(await eventTypes(db, pendingId)).toEqual(['ASKED', 'ANSWERED']);
  });

  it('killed at deliver.offered (answered on B, handed to the agent waiting on A): B takes the claim back and resumes the agent itself', async () => {
    const a = await startReplica(databaseUrl, { PARLEY_TEST_PAUSE_AT: 'deliver.offered' });
    const { pendingId } = await agentAsksOn(a);
    const replied = answerOn(b, pendingId);
    await pausedAt(a, 'deliver.offered');
    await killServer(a);

    const res = await replied;
    expect(res).not.toBeInstanceOf(Error);
    expect((res as request.Response).status).toBe(200);
    expect((res as request.Response).body).toMatchObject({ claimed: true, status: 'answered', response: { answers: FIRST } });
    expect(settlement(await rowsOf(db, pendingId))).toBe('final');
    const [successor] = await resumeTurns(db, pendingId);
    expectOneKey(pendingId, successor);
    expect(webhook.postsFor(pendingId)).toHaveLength(1);
    expect((await db.query(`SELECT 1 FROM clarification_handoffs WHERE pending_id = $1`, [pendingId])).rows).toEqual([]);
    expect(await eventTypes(db, pendingId)).toEqual(['ASKED', 'ANSWERED']);
  });

  it('across every bundle of this file: none answered with neither an accepted resume nor a queued prompt (unless delivered live)', async () => {
    const { rows } = await db.query<{ pending_id: string; delivery: string }>(
      `SELECT pending_id, payload->>'delivery' AS delivery FROM question_events WHERE type = 'ANSWERED'`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const { pending_id: pendingId, delivery } of rows) {
      const accepted = webhook.postsFor(pendingId).some((post) => post.status >= 200 && post.status < 300);
      const queued = (await resumePrompts(db, pendingId)).length > 0;
      expect({ pendingId, handedOff: delivery === 'live_waiter' || accepted || queued }).toEqual({ pendingId, handedOff: true });
    }
  });
});
