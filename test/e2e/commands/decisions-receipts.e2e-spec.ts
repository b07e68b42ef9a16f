/**
 * Request-id receipts, decision claims and their leases, against a real PostgreSQL. The
 * reference suite's concurrency tests are mirrored by stepping into the real service at the same
 * points (between reserving and claiming, between claiming and send_started) and an injectable
 * clock (CommandClock) moves lease expiry; the one send is the real ResolveBundle throughout.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import { ResolveBundleService } from '#clarification';
import {
  canonicalMutation,
  CommandClock,
  CommandReceiptRepository,
  CommandRetentionService,
  type Ownership,
  parseCommandRequest,
} from '#decisions';
import { startApp, type TestApp } from '../../support/app.js';
import { answerRequest, ask, command, databaseQuestion, decisionRefOf } from '../../support/decisions.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession } from '../../support/fixtures.js';

const LEASE_MS = 30_000;
const DAY_MS = 24 * 3_600_000;
/** Every command here is sent with auth disabled: the synthetic caller's receipts. */
const SYNTHETIC = 'synthetic';

/** Replaces one method of a live provider until the returned restore is called. */
function intercept<T extends object, K extends keyof T>(target: T, method: K, replacement: (original: T[K]) => T[K]): () => void {
  const original = target[method];
  target[method] = replacement((original as (...args: unknown[]) => unknown).bind(target) as T[K]);
  return () => {
    target[method] = original;
  };
}

interface StoredReceipt {
  state: string;
  status: string;
  envelope: string | null;
  owner_token_hash: string | null;
}

describe('answer_decision: receipts, claims and leases', () => {
  let t: TestApp;
  let receipts: CommandReceiptRepository;
  let clock: CommandClock;
  let resolver: ResolveBundleService;
  let commandResolves = 0;
  let restoreCounter: () => void;
  let sweeper: CommandRetentionService;

  beforeAll(async () => {
    t = await startApp();
    receipts = t.app.get(CommandReceiptRepository);
    clock = t.app.get(CommandClock);
    sweeper = t.app.get(CommandRetentionService);
    // The tests move the clock; the background sweep runs only where a test starts it.
    sweeper.onApplicationShutdown();
    resolver = t.app.get(ResolveBundleService);
    restoreCounter = intercept(resolver, 'resolve', (original) => async (caller, pendingId, input, surface) => {
      if (surface === 'command') commandResolves += 1;
      return original(caller, pendingId, input, surface);
    });
  });
  afterAll(async () => {
    restoreCounter();
    await t.close();
  });
  afterEach(() => {
    clock.now = () => new Date();
  });

  /** Moves the command clock `ms` ahead of real time. */
  function advance(ms: number): void {
    clock.now = () => new Date(Date.now() + ms);
  }

  async function worker(options: { resumeUrl?: string } = {}) {
    const fixture = await createRunningSession(t, options);
    const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()]);
    return { ...fixture, pendingId, decisionRef: await decisionRefOf(t, fixture.sessionId) };
  }

  async function receipt(requestId: string): Promise<StoredReceipt | undefined> {
    const { rows } = await t.db.query<StoredReceipt>(
      `SELECT state, status, envelope, owner_token_hash FROM command_receipts WHERE request_id = $1`,
      [requestId],
    );
    return rows[0];
  }

  async function bundle(pendingId: string): Promise<Array<{ status: string; response: unknown; updated_at: string }>> {
    const { rows } = await t.db.query(
      `SELECT metadata->>'status' AS status, metadata->'response' AS response, updated_at::text AS updated_at
         FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'`,
      [pendingId],
    );
    return rows as Array<{ status: string; response: unknown; updated_at: string }>;
  }

  async function claims(workerId: string): Promise<Array<{ request_id: string; state: string }>> {
    const { rows } = await t.db.query(`SELECT request_id, state FROM decision_claims WHERE worker_id = $1`, [workerId]);
    return rows as Array<{ request_id: string; state: string }>;
  }

  /** A reservation (and optionally its claim and send start) written as a process that then vanished would leave it. */
  async function abandoned(
    body: Record<string, unknown>,
    decisionRef: string,
    pendingId: string,
    stage: 'reserved' | 'claimed' | 'send_started',
    at: Date,
  ): Promise<Ownership> {
    const parsed = parseCommandRequest(body);
    const identity = canonicalMutation(parsed);
    const owner: Ownership = { callerKey: SYNTHETIC, requestId: parsed.requestId as string, ownerHash: `dead-owner-${Math.random()}`, workerId: parsed.workerId, claimHash: `dead-claim-${Math.random()}` };
    const expiresAt = new Date(at.getTime() + LEASE_MS);
    expect(
      await receipts.reserve({ callerKey: owner.callerKey, requestId: owner.requestId, fingerprint: identity.fingerprint, canonicalJson: identity.json, workerId: owner.workerId, ownerHash: owner.ownerHash, now: at, expiresAt }),
    ).toBe(true);
    if (stage !== 'reserved') expect(await receipts.claim(owner, decisionRef, at, expiresAt)).toBe(true);
    if (stage === 'send_started') expect(await receipts.markSendStarted(owner, pendingId, at, expiresAt)).toBe(true);
    return owner;
  }

  it('answer_decision: request-id replay does not resend — the stored envelope comes back byte for byte', async () => {
    const w = await worker();
    const body = answerRequest(w.sessionId, w.decisionRef, { requestId: 'replay-1' });
    const before = commandResolves;
    const first = await command(t, body);
    expect(first.httpStatus).toBe(200);
    expect(first.body).toEqual({
      schema_version: 2,
      action: 'answer_decision',
      request_id: 'replay-1',
      ok: true,
      dry_run: false,
      status: 'accepted',
      disposition: 'terminal_accepted',
      result: { target: { worker_id: w.sessionId }, decision: { decision_ref: w.decisionRef }, pending_id: w.pendingId, delivery_state: 'submitted' },
      error: null,
      warnings: [],
    });
    const answered = await bundle(w.pendingId);
    expect(answered.map((row) => [row.status, row.response])).toEqual([['answered', { question_id: 'db', selected_options: ['sqlite'], custom_text: '' }]]);

    const replay = await command(t, body);
    expect(replay.httpStatus).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(commandResolves - before).toBe(1);
    expect(await bundle(w.pendingId)).toEqual(answered);
    expect(await receipt('replay-1')).toEqual({ state: 'accepted', status: 'accepted', envelope: first.text, owner_token_hash: null });
    expect(await claims(w.sessionId)).toEqual([]);
  });

  it('same request_id, different canonical mutation ⇒ duplicate_request; the original is untouched', async () => {
    const w = await worker();
    const original = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'dup-1', selection: { option_refs: ['1'] } }));
    expect(original.body.status).toBe('accepted');
    const other = await worker();
    for (const body of [
      answerRequest(w.sessionId, w.decisionRef, { requestId: 'dup-1', selection: { option_refs: ['2'] } }),
      answerRequest(w.sessionId, w.decisionRef, { requestId: 'dup-1', selection: { text: 'Postgres' } }),
      answerRequest(other.sessionId, other.decisionRef, { requestId: 'dup-1', selection: { option_refs: ['1'] } }),
    ]) {
      const duplicate = await command(t, body);
      expect({ http: duplicate.httpStatus, status: duplicate.body.status, disposition: duplicate.body.disposition, ok: duplicate.body.ok }).toEqual({
        http: 409,
        status: 'duplicate_request',
        disposition: 'terminal_rejected',
        ok: false,
      });
      expect(duplicate.body.error?.message).toBe('request_id reused with a different canonical mutation');
    }
    expect((await receipt('dup-1'))?.envelope).toBe(original.text);
    expect((await bundle(other.pendingId)).map((row) => row.status)).toEqual(['pending']);
    // Option refs are compared as a set in numeric order: the same multi selection in another order is a replay.
    const multi = await createRunningSession(t);
    await ask(t, multi.sessionId, [databaseQuestion({ multi_select: true })]);
    const multiRef = await decisionRefOf(t, multi.sessionId);
    const sent = await command(t, answerRequest(multi.sessionId, multiRef, { requestId: 'dup-multi', selection: { option_refs: ['1', '3'] } }));
    const reordered = await command(t, answerRequest(multi.sessionId, multiRef, { requestId: 'dup-multi', selection: { option_refs: ['3', '1'] } }));
    expect(reordered.text).toBe(sent.text);
  });

  it('answer_decision: two requests race one decision and only the first claimant sends (the loser: answer_in_progress, no_receipt)', async () => {
    const w = await worker();
    const before = commandResolves;
    let loser: Awaited<ReturnType<typeof command>> | undefined;
    const restore = intercept(receipts, 'markSendStarted', (original) => async (...args) => {
      loser ??= await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'race-loser', selection: { option_refs: ['1'] } }));
      return original(...args);
    });
    try {
      const winner = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'race-winner' }));
      expect(winner.body).toMatchObject({ ok: true, status: 'accepted', disposition: 'terminal_accepted' });
    } finally {
      restore();
    }
    expect(loser?.httpStatus).toBe(409);
    expect(loser?.body).toMatchObject({ ok: false, status: 'answer_in_progress', disposition: 'no_receipt', request_id: 'race-loser' });
    expect(await receipt('race-loser')).toBeUndefined();
    expect(commandResolves - before).toBe(1);
    expect((await bundle(w.pendingId)).map((row) => row.response)).toEqual([{ question_id: 'db', selected_options: ['sqlite'], custom_text: '' }]);
    // The loser retries: the decision is answered now, so it is no longer pending.
    expect((await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'race-loser', selection: { option_refs: ['1'] } }))).body.status).toBe(
      'decision_not_pending',
    );
  });

  it('answer_decision: a winner’s safe pre-send failure releases the claim for the loser’s retry', async () => {
    const w = await worker();
    const before = commandResolves;
    let loser: Awaited<ReturnType<typeof command>> | undefined;
    const restore = intercept(receipts, 'markSendStarted', (original) => async (...args) => {
      if (loser) return original(...args);
      loser = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'safe-retry' }));
      return false; // send_started could not be recorded: nothing was sent
    });
    let failedWinner;
    try {
      failedWinner = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'safe-failure' }));
    } finally {
      restore();
    }
    expect(failedWinner.httpStatus).toBe(202);
    expect(failedWinner.body).toMatchObject({ ok: false, status: 'pending', disposition: 'in_progress' });
    expect(loser?.body).toMatchObject({ status: 'answer_in_progress', disposition: 'no_receipt' });
    expect(await claims(w.sessionId)).toEqual([]);
    expect((await receipt('safe-failure'))?.state).toBe('reserved');

    const retried = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'safe-retry' }));
    expect(retried.body).toMatchObject({ ok: true, status: 'accepted' });
    expect(commandResolves - before).toBe(1);
    // The failed winner's reservation is recoverable: in progress while its lease lives, then taken over
    // and terminalized by what is true now.
    expect((await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'safe-failure' }))).body).toMatchObject({
      status: 'pending',
      disposition: 'in_progress',
    });
    advance(LEASE_MS + 1_000);
    const recovered = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'safe-failure' }));
    expect(recovered.body).toMatchObject({ status: 'decision_not_pending', disposition: 'terminal_rejected' });
    expect((await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'safe-failure' }))).text).toBe(recovered.text);
    expect(commandResolves - before).toBe(1);
  });

  it('answer_decision: a claim-time loser releases its unsent reservation for takeover', async () => {
    const w = await worker();
    const body = answerRequest(w.sessionId, w.decisionRef, { requestId: 'claim-time-loser' });
    const competitor: Ownership = { callerKey: SYNTHETIC, requestId: 'competitor', ownerHash: 'competitor-owner', workerId: w.sessionId, claimHash: 'competitor-claim' };
    const restore = intercept(receipts, 'claim', (original) => async (...args) => {
      const now = clock.now();
      expect(await original(competitor, w.decisionRef, now, new Date(now.getTime() + LEASE_MS))).toBe(true);
      return original(...args);
    });
    let first;
    try {
      first = await command(t, body);
    } finally {
      restore();
    }
    expect(first.httpStatus).toBe(409);
    expect(first.body).toMatchObject({ ok: false, status: 'answer_in_progress', disposition: 'in_progress' });
    expect(await receipt('claim-time-loser')).toMatchObject({ state: 'reserved', status: 'pending', envelope: null });
    expect((await bundle(w.pendingId)).map((row) => row.status)).toEqual(['pending']);

    await receipts.releaseClaim(competitor);
    const retry = await command(t, body);
    expect(retry.body).toMatchObject({ ok: true, status: 'accepted', disposition: 'terminal_accepted' });
    expect((await receipt('claim-time-loser'))?.state).toBe('accepted');
  });

  it('answer_decision: an abandoned reservation is not terminalized by a live claim', async () => {
    const w = await worker();
    const body = answerRequest(w.sessionId, w.decisionRef, { requestId: 'abandoned-loser' });
    await abandoned(body, w.decisionRef, w.pendingId, 'reserved', new Date(Date.now() - 10 * 60_000));
    const now = clock.now();
    expect(
      await receipts.claim({ callerKey: SYNTHETIC, requestId: 'live-holder', ownerHash: 'x', workerId: w.sessionId, claimHash: 'live-holder-claim' }, w.decisionRef, now, new Date(now.getTime() + LEASE_MS)),
    ).toBe(true);
    const result = await command(t, body);
    expect(result.body).toMatchObject({ status: 'answer_in_progress', disposition: 'in_progress' });
    expect(await receipt('abandoned-loser')).toMatchObject({ state: 'reserved', status: 'pending' });
    expect((await bundle(w.pendingId)).map((row) => row.status)).toEqual(['pending']);
  });

  it('answer_decision: process loss before send_started is recovered after the lease expires', async () => {
    const w = await worker();
    const body = answerRequest(w.sessionId, w.decisionRef, { requestId: 'crashed-before-send' });
    await abandoned(body, w.decisionRef, w.pendingId, 'claimed', clock.now());
    const before = commandResolves;
    // While the dead owner's lease lives, a retry is told to wait; a competing request too.
    expect((await command(t, body)).body).toMatchObject({ status: 'pending', disposition: 'in_progress' });
    expect((await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'other-connector' }))).body).toMatchObject({
      status: 'answer_in_progress',
      disposition: 'no_receipt',
    });
    advance(LEASE_MS + 1_000);
    const recovered = await command(t, body);
    expect(recovered.body).toMatchObject({ ok: true, status: 'accepted', disposition: 'terminal_accepted' });
    expect(commandResolves - before).toBe(1);
    expect(await claims(w.sessionId)).toEqual([]);
  });

  it('a started send is never taken over: after its owner’s lease it is uncertain (durable), never resent, and the worker is free again', async () => {
    const w = await worker();
    const body = answerRequest(w.sessionId, w.decisionRef, { requestId: 'died-while-sending' });
    await abandoned(body, w.decisionRef, w.pendingId, 'send_started', clock.now());
    const before = commandResolves;
    expect((await command(t, body)).body).toMatchObject({ status: 'pending', disposition: 'in_progress' });
    advance(LEASE_MS + 1_000);
    // A competitor never takes a started send's claim, even with its lease long expired.
    const competitor = answerRequest(w.sessionId, w.decisionRef, { requestId: 'competitor-after-death', selection: { option_refs: ['1'] } });
    expect((await command(t, competitor)).body).toMatchObject({ status: 'answer_in_progress', disposition: 'no_receipt' });
    expect(await claims(w.sessionId)).toEqual([{ request_id: 'died-while-sending', state: 'send_started' }]);

    const uncertain = await command(t, body);
    expect(uncertain.httpStatus).toBe(500);
    expect(uncertain.body).toMatchObject({ ok: false, status: 'request_state_uncertain', disposition: 'terminal_uncertain', result: null });
    expect(uncertain.body.error?.message).toBe(
      'the sender stopped before recording the outcome; the answer may or may not have been recorded; it will not be resent',
    );
    expect(await receipt('died-while-sending')).toMatchObject({ state: 'uncertain', status: 'request_state_uncertain', envelope: uncertain.text });
    expect((await command(t, body)).text).toBe(uncertain.text);
    expect(commandResolves - before).toBe(0);
    expect((await bundle(w.pendingId)).map((row) => row.status)).toEqual(['pending']);
    // Its claim ended with it: the competitor's retry answers.
    expect((await command(t, competitor)).body).toMatchObject({ status: 'accepted' });
    expect(commandResolves - before).toBe(1);
  });

  it('answer_decision: send uncertainty is durable and never resends (the agent could not be resumed after the claim)', async () => {
    const hits: string[] = [];
    const webhook: Server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        hits.push(raw);
        res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    try {
      const w = await worker({ resumeUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/resume` });
      const body = answerRequest(w.sessionId, w.decisionRef, { requestId: 'uncertain-decision' });
      const before = commandResolves;
      const first = await command(t, body);
      expect(first.httpStatus).toBe(500);
      expect(first.body).toMatchObject({ ok: false, status: 'request_state_uncertain', disposition: 'terminal_uncertain' });
      expect(first.body.error?.message).toBe('the answer may or may not have been recorded; it will not be resent');
      const replay = await command(t, body);
      expect(replay.text).toBe(first.text);
      expect(commandResolves - before).toBe(1);
      expect(hits).toHaveLength(1);
      expect(await receipt('uncertain-decision')).toMatchObject({ state: 'uncertain', envelope: first.text });
      expect(await claims(w.sessionId)).toEqual([]);
    } finally {
      await new Promise((resolve) => webhook.close(resolve));
    }
  });

  it('a send that loses to another surface is decision_not_pending, terminal_rejected — never accepted', async () => {
    const w = await worker();
    const restore = intercept(receipts, 'markSendStarted', (original) => async (...args) => {
      await request(t.baseUrl)
        .post(`/api/v1/clarification/${w.pendingId}/respond`)
        .send({ answers: [{ question_id: 'db', selected_options: ['postgres'], custom_text: 'from the browser' }] })
        .expect(200);
      return original(...args);
    });
    let lost;
    try {
      lost = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'lost-to-rest' }));
    } finally {
      restore();
    }
    expect(lost.httpStatus).toBe(409);
    expect(lost.body).toMatchObject({ ok: false, status: 'decision_not_pending', disposition: 'terminal_rejected' });
    expect((await bundle(w.pendingId)).map((row) => row.response)).toEqual([{ question_id: 'db', selected_options: ['postgres'], custom_text: 'from the browser' }]);
    expect((await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'lost-to-rest' }))).text).toBe(lost.text);
  });

  it('a store failure before reserving is backend_unavailable (no receipt); after reserving, the reservation stays recoverable', async () => {
    const w = await worker();
    const restoreFind = intercept(receipts, 'find', () => () => Promise.reject(new Error('connection terminated')));
    let unavailable;
    try {
      unavailable = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'store-down' }));
    } finally {
      restoreFind();
    }
    expect(unavailable.httpStatus).toBe(503);
    expect(unavailable.body).toMatchObject({ status: 'backend_unavailable', disposition: 'no_receipt' });
    expect(await receipt('store-down')).toBeUndefined();

    const restoreClaim = intercept(receipts, 'claim', () => () => Promise.reject(new Error('connection terminated')));
    let pending;
    try {
      pending = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'store-down' }));
    } finally {
      restoreClaim();
    }
    expect(pending.httpStatus).toBe(202);
    expect(pending.body).toMatchObject({ status: 'pending', disposition: 'in_progress' });
    expect((await receipt('store-down'))?.state).toBe('reserved');
    // A failure while re-driving that reservation does not hide it either.
    const restoreCheck = intercept(receipts, 'findClaim', () => () => Promise.reject(new Error('connection terminated')));
    let stillPending;
    try {
      stillPending = await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'store-down' }));
    } finally {
      restoreCheck();
    }
    expect(stillPending.body).toMatchObject({ status: 'pending', disposition: 'in_progress' });
    // Released at once: the retry takes it over and answers.
    expect((await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'store-down' }))).body.status).toBe('accepted');
  });

  it('the background sweep turns an abandoned send uncertain and frees its worker', async () => {
    const w = await worker();
    const body = answerRequest(w.sessionId, w.decisionRef, { requestId: 'swept-send' });
    await abandoned(body, w.decisionRef, w.pendingId, 'send_started', new Date(Date.now() - 2 * LEASE_MS));
    sweeper.onModuleInit();
    try {
      await eventually(async () => ((await receipt('swept-send'))?.state === 'uncertain' ? true : undefined), 20_000, 'the background sweep');
    } finally {
      sweeper.onApplicationShutdown();
    }
    expect(await claims(w.sessionId)).toEqual([]);
    const replay = await command(t, body);
    expect(replay.body).toMatchObject({ status: 'request_state_uncertain', disposition: 'terminal_uncertain' });
    expect((await bundle(w.pendingId)).map((row) => row.status)).toEqual(['pending']);
  });

  it('retention: receipts are kept 7 days (replayed until then), then swept; live ones never are', async () => {
    const w = await worker();
    const body = answerRequest(w.sessionId, w.decisionRef, { requestId: 'retained' });
    const first = await command(t, body);
    const other = await worker();
    const liveBody = answerRequest(other.sessionId, other.decisionRef, { requestId: 'long-live-reservation' });
    const abandonedOwner = await abandoned(answerRequest(other.sessionId, other.decisionRef, { requestId: 'old-abandoned' }), other.decisionRef, other.pendingId, 'claimed', clock.now());
    advance(6 * DAY_MS);
    await sweeper.sweep();
    expect((await command(t, body)).text).toBe(first.text);

    advance(8 * DAY_MS);
    const live = await abandoned(liveBody, other.decisionRef, other.pendingId, 'reserved', clock.now());
    const result = await sweeper.sweep();
    expect(result.receipts).toBeGreaterThanOrEqual(2);
    expect(await receipt('retained')).toBeUndefined();
    expect(await receipt('old-abandoned')).toBeUndefined();
    expect((await claims(other.sessionId)).map((claim) => claim.request_id)).not.toContain(abandonedOwner.requestId);
    expect((await receipt(live.requestId))?.state).toBe('reserved');
    // Past the horizon the id is new again: checked against what is true now.
    expect((await command(t, body)).body).toMatchObject({ status: 'decision_not_pending', disposition: 'no_receipt' });
  });

  it('every attempt is logged with request_id, worker, status and disposition — never the answer text', async () => {
    const w = await worker();
    const lines: unknown[] = [];
    const originalLog = Object.getOwnPropertyDescriptor(Logger.prototype, 'log') as PropertyDescriptor;
    Logger.prototype.log = function (this: Logger, message: unknown, ...rest: unknown[]) {
      lines.push(message);
      return (originalLog.value as (...args: unknown[]) => void).call(this, message, ...rest);
    } as Logger['log'];
    const secret = 'my-secret-write-in-text';
    try {
      await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'logged-1', selection: { text: secret } }));
      await command(t, answerRequest(w.sessionId, w.decisionRef, { requestId: 'logged-1', selection: { text: secret } }));
      await command(t, { ...answerRequest(w.sessionId, w.decisionRef, { requestId: 'logged-2' }), bogus: secret });
    } finally {
      Object.defineProperty(Logger.prototype, 'log', originalLog);
    }
    const attempts = lines.filter((line) => (line as { msg?: string }).msg === 'command');
    expect(attempts).toEqual([
      { msg: 'command', request_id: 'logged-1', worker_id: w.sessionId, dry_run: false, status: 'accepted', disposition: 'terminal_accepted' },
      { msg: 'command', request_id: 'logged-1', worker_id: w.sessionId, dry_run: false, status: 'accepted', disposition: 'terminal_accepted' },
      { msg: 'command', request_id: 'logged-2', worker_id: null, dry_run: false, status: 'invalid_request', disposition: 'no_receipt' },
    ]);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });
});
