/**
 * A loser is told the winner's answer only once it is final. The three answering
 * surfaces race on each fresh bundle while the agent's resume webhook refuses, answers slowly or
 * flips between refusing and accepting. In every round: at most one claimed:true, every loser's
 * reported answer (claimed:false) equals the answer finally stored, and whoever was not told a
 * final answer got a retryable error (500 "pending again" / 503 "retry to learn it") — never a 409,
 * never an answer that was rolled back a moment later.
 */
import request from 'supertest';
import { BundleRepository, ClaimRepository } from '#clarification/testing';
import { startApp, type TestApp } from '../support/app.js';
import { isActive, isRestored, resumeTurns, rowsOf } from '../support/bundle-state.js';
import { QUIET_LEASE } from '../support/claim.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, createUser, TWO_QUESTIONS } from '../support/fixtures.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';
import { checkRound } from '../support/race.js';
import { ANSWERS, isRetryable, type Outcome, type Submission, submit, type Surface, SURFACES } from '../support/surfaces.js';
import { flaky, refuse, type Responder, slow, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const RESUME_TIMEOUT_MS = 3_000;
/** findBundleState as a plain function (the original, bound to its repository). */
type FindBundle = (...args: Parameters<BundleRepository['findBundleState']>) => ReturnType<BundleRepository['findBundleState']>;
const CONFIG = { authMode: 'enabled', resumeTimeoutMs: RESUME_TIMEOUT_MS, deliveryConfirmTimeoutMs: 2_000, ...QUIET_LEASE } as const;

describe('the three-surface race against a refusing, a slow and a flaky resume webhook', () => {
  let t: TestApp;
  let token: string;
  let mcp: McpConnection;
  const receivers: WebhookReceiver[] = [];
  const wins: Record<string, Record<Surface | 'none', number>> = {};

  beforeAll(async () => {
    t = await startApp({ config: CONFIG });
    token = (await createUser(t, 'racer')).token;
    mcp = await connectMcp(t.baseUrl, { bearer: token });
  });
  afterAll(async () => {
    // Information only: which surface won how often, per webhook behaviour.
    process.stdout.write(`§1b race winners (information only): ${JSON.stringify(wins)}\n`);
    await mcp.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await t.close();
  });

  async function receiver(respond: Responder): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver(respond);
    receivers.push(started);
    return started;
  }

  /**
   * A second replica on the same database, with every claim of both held (in its transaction, before
   * the session's lock) until two have arrived:
   * answers to one bundle in one process wait for that process's claim (test/loser-coalescing), so two
   * claims reach the database one after the other only from two processes.
   */
  async function replicaWithClaimBarrier(): Promise<{ replica: TestApp; restore: () => Promise<void> }> {
    const replica = await startApp({ databaseUrl: t.databaseUrl, config: CONFIG });
    let arrived = 0;
    let bothArrived!: () => void;
    const barrier = new Promise<void>((resolve) => (bothArrived = resolve));
    const repositories = [t, replica].map((app) => app.app.get(ClaimRepository));
    for (const claims of repositories) {
      const claim = claims.lockSession.bind(claims);
      claims.lockSession = async (...args) => {
        arrived += 1;
        if (arrived === 2) bothArrived();
        await barrier;
        return claim(...args);
      };
    }
    return {
      replica,
      restore: async () => {
        for (const claims of repositories) delete (claims as Partial<ClaimRepository>).lockSession;
        await replica.close();
      },
    };
  }

  /** Patches findBundleState on both replicas with `slowRead` (given the original read). */
  function slowBundleReads(apps: TestApp[], slowRead: (read: FindBundle) => FindBundle): () => void {
    const repositories = apps.map((app) => app.app.get(BundleRepository));
    for (const bundles of repositories) bundles.findBundleState = slowRead(bundles.findBundleState.bind(bundles));
    return () => {
      for (const bundles of repositories) delete (bundles as Partial<BundleRepository>).findBundleState;
    };
  }

  async function round(webhook: WebhookReceiver, index: number, rejecter?: Surface): Promise<{ winner: Surface | undefined; pendingId: string }> {
    const fixture = await createRunningSession(t, { bearer: token, resumeUrl: webhook.url });
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${token}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    const pendingId = asked.body.pending_id as string;
    const submissions = Object.fromEntries(
      SURFACES.map((surface) => [
        surface,
        surface === rejecter ? { kind: 'reject', reason: `declined over ${surface} in round ${index}` } : { kind: 'answer', answers: ANSWERS[surface] },
      ]),
    ) as Record<Surface, Submission>;
    const client = { baseUrl: t.baseUrl, token, mcp };
    const outcomes = await Promise.all(SURFACES.map(async (surface) => [surface, await submit(surface, client, pendingId, submissions[surface])] as [Surface, Outcome]));
    const rows = await rowsOf(t.db, pendingId);
    const winner = checkRound({ outcomes, rows, submissions });
    // One resume accepted for an answered winner (none for a rejection or no winner), on its one successor turn.
    const accepted = webhook.postsFor(pendingId).filter((post) => post.status >= 200 && post.status < 300);
    const answered = rows[0]?.status === 'answered';
    expect(accepted).toHaveLength(answered ? 1 : 0);
    expect(await resumeTurns(t.db, pendingId)).toEqual(answered ? [accepted[0]?.idempotencyKey] : []);
    return { winner, pendingId };
  }

  function tally(mode: string, winner: Surface | undefined): void {
    wins[mode] ??= { rest: 0, graphql: 0, mcp: 0, none: 0 };
    (wins[mode])[winner ?? 'none'] += 1;
  }

  it('an always-refusing webhook: nobody is ever told claimed:false, everyone a retryable error, the bundle ends pending', async () => {
    const webhook = await receiver(refuse);
    for (let index = 0; index < 8; index += 1) {
      const { winner, pendingId } = await round(webhook, index);
      tally('refusing', winner);
      expect(winner).toBeUndefined();
      expect(await isActive(t.db, pendingId)).toBe(true);
      expect(webhook.postsFor(pendingId).length).toBeGreaterThanOrEqual(1);
    }
  });

  it('a slow webhook: one winner, both losers told its answer once the resume was accepted', async () => {
    const webhook = await receiver(slow(250));
    for (let index = 0; index < 6; index += 1) {
      const { winner } = await round(webhook, index, index === 4 ? 'mcp' : undefined);
      tally('slow', winner);
      expect(winner).toBeDefined();
    }
  });

  it('a flaky webhook (refuse, accept, refuse, …): every loser told the answer finally stored', async () => {
    const webhook = await receiver(flaky);
    for (let index = 0; index < 10; index += 1) {
      const { winner } = await round(webhook, index, index % 5 === 3 ? SURFACES[index % 3] : undefined);
      tally('flaky', winner);
    }
  });

  it('a loser whose re-read comes only after the winner was rolled back makes its own attempt — never a 409 on a pending bundle', async () => {
    const webhook = await receiver(refuse);
    const fixture = await createRunningSession(t, { bearer: token, resumeUrl: webhook.url });
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${token}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    const pendingId = asked.body.pending_id as string;
    // Scheduling made explicit: both callers pass their authorizing read before either claims…
    const { replica, restore } = await replicaWithClaimBarrier();
    // …and the loser is slow: its one re-read runs only once the winner's rollback has committed.
    let slowed = false;
    const unslow = slowBundleReads([t, replica], (read) => async (id, ...rest) => {
      if (id === pendingId && !slowed) {
        slowed = true;
        await eventually(async () => (isRestored(await rowsOf(t.db, pendingId)) ? true : undefined), 5_000, 'the winner rolled back');
      }
      return read(id, ...rest);
    });
    try {
      const outcomes = await Promise.all([
        submit('rest', { baseUrl: t.baseUrl, token, mcp }, pendingId, { kind: 'answer', answers: ANSWERS.rest }),
        submit('graphql', { baseUrl: replica.baseUrl, token, mcp }, pendingId, { kind: 'answer', answers: ANSWERS.graphql }),
      ]);
      expect(slowed).toBe(true);
      expect(outcomes.filter((outcome) => !isRetryable(outcome))).toEqual([]);
      // The loser claimed in its turn (and was refused too): two resume attempts, the bundle pending.
      expect(webhook.postsFor(pendingId)).toHaveLength(2);
      expect(isRestored(await rowsOf(t.db, pendingId))).toBe(true);
      expect(await isActive(t.db, pendingId)).toBe(true);
    } finally {
      unslow();
      await restore();
    }
  });

  it('a loser that read the bundle rolled back, while another answer then won: told that answer, not a 409', async () => {
    const webhook = await receiver(refuse);
    const fixture = await createRunningSession(t, { bearer: token, resumeUrl: webhook.url });
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${token}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    const pendingId = asked.body.pending_id as string;
    const { replica, restore } = await replicaWithClaimBarrier();
    // The loser reads the bundle pending again (the winner was rolled back), then stalls while a rejection wins.
    let loserRead!: () => void;
    const readDone = new Promise<void>((resolve) => (loserRead = resolve));
    let stalled = false;
    const unslow = slowBundleReads([t, replica], (read) => async (id, ...rest) => {
      if (id !== pendingId || stalled) return read(id, ...rest);
      stalled = true;
      await eventually(async () => (isRestored(await rowsOf(t.db, pendingId)) ? true : undefined), 5_000, 'the winner rolled back');
      const rows = await read(id, ...rest);
      loserRead();
      await eventually(async () => ((await rowsOf(t.db, pendingId))[0]?.status === 'rejected' ? true : undefined), 5_000, 'the rejection');
      return rows;
    });
    try {
      const racing = Promise.all([
        submit('rest', { baseUrl: t.baseUrl, token, mcp }, pendingId, { kind: 'answer', answers: ANSWERS.rest }),
        submit('graphql', { baseUrl: replica.baseUrl, token, mcp }, pendingId, { kind: 'answer', answers: ANSWERS.graphql }),
      ]);
      await readDone;
      const rejection = await submit('mcp', { baseUrl: t.baseUrl, token, mcp }, pendingId, { kind: 'reject', reason: 'not needed' });
      expect(rejection).toMatchObject({ kind: 'resolved', envelope: { claimed: true, status: 'rejected' } });
      const outcomes = await racing;
      const told = outcomes.filter((outcome) => outcome.kind === 'resolved');
      // Told the rejection that won, with its receipt (the winner's own).
      const receipt = (rejection as { envelope: { receipt?: unknown } }).envelope.receipt;
      expect(typeof receipt).toBe('string');
      expect(told).toEqual([{ kind: 'resolved', envelope: { claimed: false, status: 'rejected', receipt, response: { answers: [], rejected: true, reject_reason: '' } } }]);
      expect(outcomes.filter((outcome) => outcome.kind === 'error').every(isRetryable)).toBe(true);
    } finally {
      unslow();
      await restore();
    }
  });
});
