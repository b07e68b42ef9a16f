import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { type Answer, ClarificationError, ClarificationErrorCode, type ClarificationResponse, WaiterStore } from '#clarification';
import { BundleRepository, ClarificationStatus, responseFor, WinnerDelivery } from '#clarification/testing';
import { startApp, type TestApp } from '../../support/app.js';
import { claimAndDeliver as winAndDeliver, claimer, type Outcome } from '../../support/claim.js';
import { createRunningSession, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';
import { lifecycleCounts, lifecycleMoved, questionEventsOf } from '../../support/lifecycle-events.js';

/**
 * Baseline "Delivery after a winning claim": what only the winner of a claim does — hand the
 * response to the live waiters (with the finalize confirmation), or else dismiss a rejected bundle,
 * or resume the agent exactly once (webhook accepted / refused / timed out, or queued durably).
 */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RESUME_TIMEOUT_MS = 400;

const ANSWERS: Answer[] = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: [], custom_text: 'tomorrow' },
];

const EXPECTED_PROMPT =
  'You previously asked the user: "Which database?"\nUser selected: [PostgreSQL]\n\n' +
  'You previously asked the user: "Deploy now?"\nUser wrote: tomorrow\n\n' +
  'Please continue with this information.';

type ReceiverMode = 'accept' | 'refuse' | 'hang';

interface ResumeReceiver {
  url: string;
  mode: ReceiverMode;
  /** Every POST body received, in order, with the status it was answered with (0 = never answered). */
  posts: { body: Record<string, unknown>; status: number; method: string; contentType: string }[];
  close(): Promise<void>;
}

/** A local resume webhook on 127.0.0.1:0 that records what it is sent. */
async function startReceiver(mode: ReceiverMode): Promise<ResumeReceiver> {
  const receiver: ResumeReceiver = {
    url: '',
    mode,
    posts: [],
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const post = {
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        status: 0,
        method: req.method ?? '',
        contentType: req.headers['content-type'] ?? '',
      };
      receiver.posts.push(post);
      if (receiver.mode === 'hang') return;
      post.status = receiver.mode === 'accept' ? 202 : 500;
      res.writeHead(post.status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: receiver.mode === 'accept' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/resume`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

interface MessageRowShape {
  id: string;
  turn_id: string | null;
  type: string;
  author_type: string;
  content: string;
  metadata: Record<string, unknown>;
}

interface TurnRowShape {
  id: string;
  metadata: Record<string, unknown>;
}

describe('winner delivery and resume', () => {
  let t: TestApp;
  const receivers: ResumeReceiver[] = [];

  const api = () => request(t.baseUrl);

  async function receiver(mode: ReceiverMode): Promise<ResumeReceiver> {
    const started = await startReceiver(mode);
    receivers.push(started);
    return started;
  }

  async function ask(fixture: SessionFixture, questions: unknown = TWO_QUESTIONS): Promise<string> {
    const res = await api().post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions }).expect(200);
    return res.body.pending_id as string;
  }

  /** The winner's claim and delivery; `delivery` settles with how it was delivered (or its error). */
  function claimAndDeliver(pendingId: string, outcome: Outcome) {
    const delivery = winAndDeliver(t, pendingId, outcome).then((won) => {
      if (!won) throw new Error(`the claim of ${pendingId} was lost`);
      return won.delivery;
    });
    const response = {
      ...('answers' in outcome ? responseFor(pendingId, outcome.answers, false, '') : responseFor(pendingId, [], true, outcome.reason)),
      responded_at: expect.any(String) as unknown as string,
      receipt: expect.any(String) as unknown as string,
    };
    return { delivery, response };
  }

  async function rowsOf(pendingId: string): Promise<{ id: string; turn_id: string; metadata: Record<string, unknown> }[]> {
    const { rows } = await t.db.query(
      `SELECT id, turn_id, metadata FROM task_session_messages
        WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'
        ORDER BY (metadata->>'question_index')::int`,
      [pendingId],
    );
    return rows;
  }

  async function turnsOf(sessionId: string): Promise<TurnRowShape[]> {
    const { rows } = await t.db.query<TurnRowShape>(
      'SELECT id, metadata FROM task_session_turns WHERE task_session_id = $1 ORDER BY started_at, created_at, id',
      [sessionId],
    );
    return rows;
  }

  async function sessionState(sessionId: string): Promise<string> {
    return (await api().get(`/api/v1/sessions/${sessionId}`).expect(200)).body.state as string;
  }

  const currentTurn = (sessionId: string) => t.app.get(BundleRepository).currentTurnId(sessionId);

  /**
   * What the bundle's answer publishes from now on: the final question events written for it (ANSWERED
   * or REJECTED, each naming how it was delivered) and the lifecycle events this app counts.
   */
  async function watchFinal(pendingId: string) {
    const before = await lifecycleCounts(t);
    return {
      events: async () => (await questionEventsOf(t.db, pendingId)).filter((event) => event.type === 'ANSWERED' || event.type === 'REJECTED'),
      counted: () => lifecycleMoved(t, before),
    };
  }

  /** The final question event of a bundle `fixture` asked, as `watchFinal` reads it. */
  const finalEvent = (fixture: SessionFixture, type: 'ANSWERED' | 'REJECTED', response: Omit<ClarificationResponse, 'pending_id' | 'responded_at'>, delivery: WinnerDelivery) => ({
    type,
    session_id: fixture.sessionId,
    task_id: fixture.taskId,
    payload: expect.objectContaining({
      response: { answers: response.answers, rejected: response.rejected, reject_reason: response.reject_reason },
      delivery,
      receipt: response.receipt,
    }) as unknown,
  });
  const DELIVERED = { 'clarification.primary_answered': 1, 'session.message.updated': 1 };

  /** The DELIVERY_FAILED error a delivery rejects with (anything else fails the test). */
  async function deliveryFailure(delivery: Promise<unknown>): Promise<ClarificationError> {
    try {
      await delivery;
    } catch (error) {
      if (error instanceof ClarificationError) return error;
      throw error;
    }
    throw new Error('expected the delivery to fail');
  }

  beforeAll(async () => {
    t = await startApp({ config: { resumeTimeoutMs: RESUME_TIMEOUT_MS, waitTimeoutMs: 20_000 } });
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t.close();
  });

  describe('live waiters', () => {
    it('two concurrent GET /:id/wait long polls are both woken by one claim + delivery, after finalize cleared the flag', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      const turnsBefore = await turnsOf(fixture.sessionId);
      const wait = () =>
        fetch(`${t.baseUrl}/api/v1/clarification/${pendingId}/wait`).then(async (res) => ({ status: res.status, body: (await res.json()) }));
      const waits = [wait(), wait()];
      await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 2 ? true : undefined));
      expect(await sessionState(fixture.sessionId)).toBe('WAITING_FOR_INPUT');
      const published = await watchFinal(pendingId);

      const { delivery, response } = claimAndDeliver(pendingId, { answers: ANSWERS });
      expect(await delivery).toBe(WinnerDelivery.LiveWaiter);

      const expected: ClarificationResponse = {
        pending_id: pendingId,
        answers: ANSWERS,
        rejected: false,
        reject_reason: '',
        responded_at: response.responded_at,
        receipt: response.receipt,
      };
      for (const result of await Promise.all(waits)) {
        expect(result).toEqual({ status: 200, body: expected });
        expect((result.body as { responded_at: string }).responded_at).toMatch(ISO);
      }

      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
      expect(rows.map((row) => row.metadata.response)).toEqual(ANSWERS);
      rows.forEach((row) => expect(row.metadata).not.toHaveProperty('response_delivery_pending'));

      // A live waiter means no resume: no successor turn.
      expect(await turnsOf(fixture.sessionId)).toEqual(turnsBefore);
      expect(await sessionState(fixture.sessionId)).toBe('RUNNING');
      expect(await published.events()).toEqual([finalEvent(fixture, 'ANSWERED', expected, WinnerDelivery.LiveWaiter)]);
      // Delivered (not dismissed), and the session's messages changed once.
      expect(await published.counted()).toEqual(DELIVERED);
      // The claim is single-use: a second claim finds nothing to claim.
      expect((await claimer(t).completeActiveBundle(pendingId, ClarificationStatus.Answered, new Map(ANSWERS.map((a) => [a.question_id, a])))).claimed).toBe(false);
    });

    it('a rejection reaches a live waiter as the response (primary_answered, not stale_dismissed)', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(fixture);
      const waiting = fetch(`${t.baseUrl}/api/v1/clarification/${pendingId}/wait`);
      await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));
      const published = await watchFinal(pendingId);
      const { delivery, response } = claimAndDeliver(pendingId, { rejected: true, reason: 'User skipped' });
      expect(await delivery).toBe(WinnerDelivery.LiveWaiter);
      const res = await waiting;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        pending_id: pendingId,
        answers: [],
        rejected: true,
        reject_reason: 'User skipped',
        responded_at: response.responded_at,
        receipt: response.receipt,
      });
      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
      rows.forEach((row) => {
        expect(row.metadata).not.toHaveProperty('response');
        expect(row.metadata).not.toHaveProperty('response_delivery_pending');
      });
      expect(await published.events()).toEqual([finalEvent(fixture, 'REJECTED', response, WinnerDelivery.LiveWaiter)]);
      expect(await published.counted()).toEqual(DELIVERED);
    });
  });

  describe('no live waiter', () => {
    it('rejected ⇒ stale_dismissed: finalized, no successor turn, no webhook call, session RUNNING', async () => {
      const hook = await receiver('accept');
      const fixture = await createRunningSession(t, { resumeUrl: hook.url });
      const pendingId = await ask(fixture);
      const turnsBefore = await turnsOf(fixture.sessionId);
      const published = await watchFinal(pendingId);
      const { delivery, response } = claimAndDeliver(pendingId, { rejected: true, reason: 'not relevant any more' });
      expect(await delivery).toBe(WinnerDelivery.StaleDismissed);

      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
      rows.forEach((row) => expect(row.metadata).not.toHaveProperty('response_delivery_pending'));
      expect(await turnsOf(fixture.sessionId)).toEqual(turnsBefore);
      expect(await currentTurn(fixture.sessionId)).toBe(fixture.turnId);
      expect(hook.posts).toEqual([]);
      expect(await sessionState(fixture.sessionId)).toBe('RUNNING');
      expect(await published.events()).toEqual([finalEvent(fixture, 'REJECTED', response, WinnerDelivery.StaleDismissed)]);
      expect(await published.counted()).toEqual({ 'clarification.stale_dismissed': 1, 'session.message.updated': 1 });
      const messages = (await api().get(`/api/v1/sessions/${fixture.sessionId}/messages`).expect(200)).body.messages as MessageRowShape[];
      expect(messages.map((message) => message.type)).toEqual(['clarification_request', 'clarification_request']);
    });

    it('answered ⇒ exactly one resume POST to the session resume_url; accepted ⇒ successor turn current, flag cleared, RUNNING', async () => {
      const hook = await receiver('accept');
      const fixture = await createRunningSession(t, { resumeUrl: hook.url });
      const pendingId = await ask(fixture);
      const published = await watchFinal(pendingId);
      const { delivery, response } = claimAndDeliver(pendingId, { answers: ANSWERS });
      expect(await delivery).toBe(WinnerDelivery.Resumed);

      expect(hook.posts).toHaveLength(1);
      const [post] = hook.posts;
      expect(post.method).toBe('POST');
      expect(post.contentType).toBe('application/json');
      expect(post.status).toBe(202);
      expect(Object.keys(post.body).sort()).toEqual(['pending_id', 'prompt', 'receipt', 'response', 'session_id', 'task_id', 'turn_id']);
      const successorId = post.body.turn_id as string;
      expect(post.body).toEqual({
        session_id: fixture.sessionId,
        task_id: fixture.taskId,
        pending_id: pendingId,
        turn_id: successorId,
        prompt: EXPECTED_PROMPT,
        response: { pending_id: pendingId, answers: ANSWERS, rejected: false, reject_reason: '', responded_at: response.responded_at, receipt: response.receipt },
        receipt: response.receipt,
      });

      const turns = await turnsOf(fixture.sessionId);
      expect(turns.map((turn) => turn.id)).toEqual([fixture.turnId, successorId]);
      expect(turns[1].metadata).toEqual({ prompt_dispatch_pending: true, prompt_dispatch_attempted: true, resume_of: pendingId });
      expect(await currentTurn(fixture.sessionId)).toBe(successorId);

      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
      expect(rows.map((row) => row.metadata.response)).toEqual(ANSWERS);
      rows.forEach((row) => expect(row.metadata).not.toHaveProperty('response_delivery_pending'));
      expect(await sessionState(fixture.sessionId)).toBe('RUNNING');
      expect(await published.events()).toEqual([finalEvent(fixture, 'ANSWERED', response, WinnerDelivery.Resumed)]);
      expect(await published.counted()).toEqual(DELIVERED);
      // With a webhook, nothing is queued on the successor turn.
      const { rows: queued } = await t.db.query(`SELECT id FROM task_session_messages WHERE turn_id = $1`, [successorId]);
      expect(queued).toEqual([]);

      // Exactly once: the bundle cannot be claimed again, and nothing else reaches the webhook.
      expect((await claimer(t).completeActiveBundle(pendingId, ClarificationStatus.Answered, new Map(ANSWERS.map((a) => [a.question_id, a])))).claimed).toBe(false);
      expect(hook.posts).toHaveLength(1);
    });

    it('refused (500) ⇒ DELIVERY_FAILED, bundle pending again, successor turn deleted; a retried claim then resumes exactly once', async () => {
      const hook = await receiver('refuse');
      const fixture = await createRunningSession(t, { resumeUrl: hook.url });
      const pendingId = await ask(fixture);
      const turnsBefore = await turnsOf(fixture.sessionId);
      const rowsBefore = await rowsOf(pendingId);
      const published = await watchFinal(pendingId);

      const first = claimAndDeliver(pendingId, { answers: ANSWERS });
      const error = await deliveryFailure(first.delivery);
      expect(error.code).toBe(ClarificationErrorCode.DeliveryFailed);
      expect(error.httpStatus).toBe(500);
      expect(error.message).toBe('the agent could not be resumed; the answer can be retried');
      expect(hook.posts.map((post) => post.status)).toEqual([500]);
      const refusedTurnId = hook.posts[0].body.turn_id as string;

      // Rolled back: the rows are exactly as before the claim, the successor turn is gone.
      expect(await rowsOf(pendingId)).toEqual(rowsBefore);
      expect(rowsBefore.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
      expect(await turnsOf(fixture.sessionId)).toEqual(turnsBefore);
      expect(turnsBefore.map((turn) => turn.id)).not.toContain(refusedTurnId);
      expect(await currentTurn(fixture.sessionId)).toBe(fixture.turnId);
      expect(await sessionState(fixture.sessionId)).toBe('WAITING_FOR_INPUT');
      expect(await published.events()).toEqual([]);
      expect(await published.counted()).toEqual({});
      // Active again (the durable rows say so; the live entry went with the delivery attempt).
      expect(await t.app.get(BundleRepository).isBundleActive(pendingId)).toBe(true);

      // Retry with an accepting webhook.
      hook.mode = 'accept';
      const retry = claimAndDeliver(pendingId, { answers: ANSWERS });
      expect(await retry.delivery).toBe(WinnerDelivery.Resumed);
      expect(hook.posts.map((post) => post.status)).toEqual([500, 202]);
      const acceptedTurnId = hook.posts[1].body.turn_id as string;
      expect(acceptedTurnId).not.toBe(refusedTurnId);
      expect(hook.posts[1].body.prompt).toBe(EXPECTED_PROMPT);
      expect((await turnsOf(fixture.sessionId)).map((turn) => turn.id)).toEqual([fixture.turnId, acceptedTurnId]);
      expect(await currentTurn(fixture.sessionId)).toBe(acceptedTurnId);
      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
      rows.forEach((row) => expect(row.metadata).not.toHaveProperty('response_delivery_pending'));
      expect(await sessionState(fixture.sessionId)).toBe('RUNNING');
      expect(await published.events()).toEqual([finalEvent(fixture, 'ANSWERED', retry.response, WinnerDelivery.Resumed)]);
      expect(await published.counted()).toEqual(DELIVERED);
    });

    it('timed out (the webhook never answers) ⇒ DELIVERY_FAILED, not rolled back: the answer is owed and re-sent under the same key until accepted', async () => {
      const hook = await receiver('hang');
      const fixture = await createRunningSession(t, { resumeUrl: hook.url });
      const pendingId = await ask(fixture);
      const published = await watchFinal(pendingId);

      const started = Date.now();
      const first = claimAndDeliver(pendingId, { answers: ANSWERS });
      const error = await deliveryFailure(first.delivery);
      const elapsed = Date.now() - started;
      expect(error.code).toBe(ClarificationErrorCode.DeliveryFailed);
      expect(error.message).toBe('the agent could not be resumed; the answer can be retried');
      expect(elapsed).toBeGreaterThanOrEqual(RESUME_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(RESUME_TIMEOUT_MS + 3000);
      expect(hook.posts[0].status).toBe(0);
      const successorId = hook.posts[0].body.turn_id as string;
      // The receiver may have acted on it: the claim keeps the answer, and the successor turn stays current.
      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => [row.metadata.status, row.metadata.response_delivery_pending])).toEqual([
        ['answered', true],
        ['answered', true],
      ]);
      expect(await currentTurn(fixture.sessionId)).toBe(successorId);

      // The sweeper sends it again, under the same key, until the receiver accepts it.
      hook.mode = 'accept';
      await eventually(async () => ((await rowsOf(pendingId)).every((row) => !('response_delivery_pending' in row.metadata)) ? true : undefined), 15_000, 'the owed resume accepted');
      expect(hook.posts.length).toBeGreaterThanOrEqual(2);
      expect(hook.posts.map((post) => post.body.turn_id)).toEqual(hook.posts.map(() => successorId));
      expect(hook.posts.at(-1)?.status).toBe(202);
      expect((await turnsOf(fixture.sessionId)).map((turn) => turn.id)).toEqual([fixture.turnId, successorId]);
      expect(await sessionState(fixture.sessionId)).toBe('RUNNING');
      expect(await published.events()).toEqual([finalEvent(fixture, 'ANSWERED', first.response, WinnerDelivery.Resumed)]);
      // Counted by the sweep that finished the delivery, once its transaction committed.
      await eventually(async () => (Object.keys(await published.counted()).length > 0 ? true : undefined), 5000, 'the delivery counted');
      expect(await published.counted()).toEqual(DELIVERED);
    });

    it('no webhook configured ⇒ the resume prompt is queued as a system message on the successor turn', async () => {
      const fixture = await createRunningSession(t);
      const questions = [
        { prompt: 'Pick colours', options: [{ label: 'Red' }, { label: 'Blue' }, { label: 'Green' }] },
        { prompt: 'Anything else?', options: [{ label: 'No' }, { label: 'Yes' }] },
      ];
      const pendingId = await ask(fixture, questions);
      const answers: Answer[] = [
        { question_id: 'q1', selected_options: ['q1_opt1', 'q1_opt3'], custom_text: 'and a bit of teal' },
        { question_id: 'q2', selected_options: [], custom_text: '' },
      ];
      const published = await watchFinal(pendingId);
      const { delivery, response } = claimAndDeliver(pendingId, { answers });
      expect(await delivery).toBe(WinnerDelivery.Resumed);

      const turns = await turnsOf(fixture.sessionId);
      expect(turns).toHaveLength(2);
      const successorId = turns[1].id;
      expect(turns[1].metadata).toEqual({ prompt_dispatch_pending: true, prompt_dispatch_attempted: true, resume_of: pendingId });
      expect(await currentTurn(fixture.sessionId)).toBe(successorId);

      const res = await api().get(`/api/v1/sessions/${fixture.sessionId}/messages`).expect(200);
      const messages = res.body.messages as MessageRowShape[];
      expect(messages.map((message) => message.type)).toEqual(['clarification_request', 'clarification_request', 'resume_prompt']);
      const queued = messages[2];
      expect(queued).toMatchObject({
        turn_id: successorId,
        type: 'resume_prompt',
        author_type: 'system',
        content:
          'You previously asked the user: "Pick colours"\nUser selected: [Red, Green] and wrote: and a bit of teal\n\n' +
          'You previously asked the user: "Anything else?"\n(no answer)\n\n' +
          'Please continue with this information.',
        metadata: { resume_of: pendingId, response },
      });
      const rows = await rowsOf(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
      rows.forEach((row) => expect(row.metadata).not.toHaveProperty('response_delivery_pending'));
      expect(await sessionState(fixture.sessionId)).toBe('RUNNING');
      expect(await published.events()).toEqual([finalEvent(fixture, 'ANSWERED', response, WinnerDelivery.Resumed)]);
      expect(await published.counted()).toEqual(DELIVERED);
      expect((await claimer(t).completeActiveBundle(pendingId, ClarificationStatus.Answered, new Map(answers.map((a) => [a.question_id, a])))).claimed).toBe(false);
      const { rows: count } = await t.db.query(`SELECT count(*)::int AS n FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`, [pendingId]);
      expect(count).toEqual([{ n: 1 }]);
    });
  });

  describe('server resume webhook (config resumeWebhookUrl)', () => {
    let other: TestApp;
    let hook: ResumeReceiver;

    beforeAll(async () => {
      hook = await receiver('accept');
      other = await startApp({ config: { resumeWebhookUrl: hook.url } });
    });
    afterAll(async () => {
      await other.close();
    });

    it('a session without resume_url resumes through the server webhook; its own resume_url wins when set', async () => {
      const own = await receiver('accept');
      const plain = await createRunningSession(other);
      const withOwn = await createRunningSession(other, { resumeUrl: own.url });
      const results: { pendingId: string; delivery: WinnerDelivery }[] = [];
      for (const fixture of [plain, withOwn]) {
        const res = await request(other.baseUrl)
          .post('/api/v1/clarification/request')
          .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
          .expect(200);
        const pendingId = res.body.pending_id as string;
        const won = await winAndDeliver(other, pendingId, { answers: ANSWERS });
        results.push({ pendingId, delivery: won!.delivery });
      }
      expect(results.map((result) => result.delivery)).toEqual([WinnerDelivery.Resumed, WinnerDelivery.Resumed]);
      expect(hook.posts.map((post) => [post.body.session_id, post.body.pending_id])).toEqual([[plain.sessionId, results[0].pendingId]]);
      expect(own.posts.map((post) => [post.body.session_id, post.body.pending_id])).toEqual([[withOwn.sessionId, results[1].pendingId]]);
      const { rows } = await other.db.query(`SELECT count(*)::int AS n FROM task_session_messages WHERE type = 'resume_prompt'`);
      expect(rows).toEqual([{ n: 0 }]);
    });
  });

  it('an unknown pending id cannot be claimed', async () => {
    expect(await claimer(t).completeActiveBundle(randomUUID(), ClarificationStatus.Answered, new Map())).toEqual({ claimed: false, rows: [] });
  });
});
