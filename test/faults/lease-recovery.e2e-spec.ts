/**
 * A claim records the process that owns its delivery; only a claim whose owner's lease
 * expired is recovered, by a sweeper on the other replicas (no restart needed). A replica restarting,
 * or the CLI running, never touches a delivery another live replica is carrying out — so no second
 * winner and no second resume — while a replica killed mid-delivery is cleaned up within its lease
 * expiry.
 */
import request from 'supertest';
import { isActive, isRestored, resumePrompts, resumeTurns, rowsOf, settlement } from '../support/bundle-state.js';
import { createTestDatabase, openPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../support/fixtures.js';
import { LEASE_TTL_MS, pausedAt, runCli, startReplica } from '../support/replicas.js';
import { killAllServers, killServer, type ServerProcess, stopServer } from '../support/server-process.js';
import { held, type Responder, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const FIRST = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'from replica A' },
];
const SECOND = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'from replica B' },
];
const TAKE_OVER_WITHIN_MS = LEASE_TTL_MS * 2 + 4_000;
const REPLICA_ENV = { RESUME_TIMEOUT_MS: '25000' };

describe('leases decide who may recover a delivery', () => {
  let databaseUrl: string;
  let db: ReturnType<typeof openPool>;
  let b: ServerProcess;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 4);
    b = await startReplica(databaseUrl, REPLICA_ENV);
  });
  afterAll(async () => {
    await killAllServers();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await db.end();
  });

  async function receiver(respond: Responder): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver(respond);
    receivers.push(started);
    return started;
  }

  async function bundleOn(server: ServerProcess, resumeUrl?: string): Promise<string> {
    const fixture = await createRunningSession(server, resumeUrl ? { resumeUrl } : {});
    const res = await request(server.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    return res.body.pending_id as string;
  }

  function answerOn(server: ServerProcess, pendingId: string, answers: unknown): Promise<request.Response | Error> {
    return request(server.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .send({ answers })
      .then(
        (res) => res,
        (error: Error) => error,
      );
  }

  /** Resolves once every live lease has been renewed after this call (so each replica swept again). */
  async function everyReplicaBeatAgain(): Promise<void> {
    const { rows } = await db.query<{ now: Date }>(`SELECT clock_timestamp() AS now`);
    const since = rows[0]?.now;
    await eventually(
      async () => {
        const { rows: stale } = await db.query(`SELECT id FROM parley_processes WHERE expires_at > clock_timestamp() AND heartbeat_at <= $1`, [since]);
        return stale.length === 0 ? true : undefined;
      },
      10_000,
      'every replica heartbeating again',
    );
  }

  it('A delivering to a slow webhook while B restarts and the CLI runs: no restore, one winner, one webhook call', async () => {
    const hold = held(202);
    const webhook = await receiver(hold.responder);
    const a = await startReplica(databaseUrl, REPLICA_ENV);
    const pendingId = await bundleOn(a, webhook.url);
    const fromA = answerOn(a, pendingId, FIRST);
    await eventually(() => (webhook.postsFor(pendingId).length === 1 ? true : undefined), 10_000, 'A posting the resume');
    const claimed = await rowsOf(db, pendingId);
    expect(settlement(claimed)).toBe('delivering');
    const owner = claimed[0]?.delivery_owner;
    expect(owner).toEqual(expect.any(String));

    // B restarts (its start-up sweep runs), and the CLI runs a command, while A still holds the delivery.
    expect(await stopServer(b)).toEqual({ code: 0, signal: null });
    b = await startReplica(databaseUrl, REPLICA_ENV);
    const cli = await runCli(databaseUrl, ['users:create', '--name', 'x', '--json']);
    expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(cli.stdout)).toMatchObject({ name: 'x' });
    await everyReplicaBeatAgain();
    await everyReplicaBeatAgain();

    // Untouched: still A's delivery, no second POST.
    const during = await rowsOf(db, pendingId);
    expect(during.map((row) => [row.status, row.response_delivery_pending, row.delivery_owner])).toEqual(claimed.map(() => ['answered', true, owner]));
    expect(webhook.postsFor(pendingId)).toHaveLength(1);

    // A second answer through B learns the winner once its resume is accepted.
    const fromB = answerOn(b, pendingId, SECOND);
    hold.release();
    const [won, lost] = (await Promise.all([fromA, fromB])) as request.Response[];
    expect({ status: won?.status, body: won?.body }).toMatchObject({ status: 200, body: { claimed: true, status: 'answered', response: { answers: FIRST } } });
    expect({ status: lost?.status, body: lost?.body }).toMatchObject({ status: 200, body: { claimed: false, status: 'answered', response: { answers: FIRST } } });

    const posts = webhook.postsFor(pendingId);
    expect(posts).toHaveLength(1);
    expect(await resumeTurns(db, pendingId)).toEqual([posts[0]?.idempotencyKey]);
    expect((await rowsOf(db, pendingId)).map((row) => [row.response, row.response_delivery_pending])).toEqual(FIRST.map((answer) => [answer, undefined]));
  });

  it('A killed with kill -9 mid-delivery to a live waiter: B restores the bundle within the lease expiry, and it can be answered again', async () => {
    const a = await startReplica(databaseUrl, { ...REPLICA_ENV, PARLEY_TEST_PAUSE_AT: 'deliver.offered' });
    const pendingId = await bundleOn(a);
    // Auth is disabled: a long poll is the agent's live wait.
    const waiting = request(a.baseUrl)
      .get(`/api/v1/clarification/${pendingId}/wait`)
      .then(
        (res) => res,
        (error: Error) => error,
      );
    await eventually(async () => ((await db.query(`SELECT 1 FROM clarification_waiters WHERE pending_id = $1`, [pendingId])).rows.length === 1 ? true : undefined));
    const fromA = answerOn(a, pendingId, FIRST);
    await pausedAt(a, 'deliver.offered');

    await killServer(a);
    await Promise.all([waiting, fromA]);
    await eventually(async () => (isRestored(await rowsOf(db, pendingId)) ? true : undefined), TAKE_OVER_WITHIN_MS, 'B restoring the bundle');
    expect(await isActive(db, pendingId)).toBe(true);

    const again = (await answerOn(b, pendingId, SECOND)) as request.Response;
    expect({ status: again.status, body: again.body }).toMatchObject({ status: 200, body: { claimed: true, status: 'answered', response: { answers: SECOND } } });
    // Nobody waits now: the agent is resumed — no webhook here, so the prompt is queued.
    const [successor] = await resumeTurns(db, pendingId);
    expect(await resumePrompts(db, pendingId)).toEqual([successor]);
  });

  it('A killed with kill -9 while its resume POST is in flight: B re-sends it with the same Idempotency-Key within the lease expiry', async () => {
    // The first POST never gets an answer (its sender dies); any later one is accepted.
    const webhook = await receiver((_post, index) => (index === 0 ? 'hang' : 202));
    const a = await startReplica(databaseUrl, REPLICA_ENV);
    const pendingId = await bundleOn(a, webhook.url);
    const fromA = answerOn(a, pendingId, FIRST);
    await eventually(() => (webhook.postsFor(pendingId).length === 1 ? true : undefined), 10_000, 'A posting the resume');

    await killServer(a);
    await fromA;
    await eventually(async () => (settlement(await rowsOf(db, pendingId)) === 'final' ? true : undefined), TAKE_OVER_WITHIN_MS, 'B re-sending');

    const [successor] = await resumeTurns(db, pendingId);
    expect(webhook.postsFor(pendingId).map((post) => [post.idempotencyKey, post.body.turn_id, post.status])).toEqual([
      [successor, successor, 0],
      [successor, successor, 202],
    ]);
    expect((await rowsOf(db, pendingId)).map((row) => row.response)).toEqual(FIRST);
  });
});
