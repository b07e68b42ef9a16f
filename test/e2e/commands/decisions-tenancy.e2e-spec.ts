/**
 * Command request ids are per caller (docs/api/commands.md, Receipts): with auth enabled, one user's
 * use of a request_id is invisible to every other user — it neither spends the id for them nor
 * replays its stored envelope to them, and another user's live claim is never taken for "this
 * request's own" — while each caller's own ids still replay and deduplicate as before, under real
 * concurrency too.
 */
import { ResolveBundleService } from '#clarification';
import { CommandReceiptRepository } from '#decisions';
import { startApp, type TestApp } from '../../support/app.js';
import { answerRequest, ask, command, type CommandResult, databaseQuestion, decisionRefOf } from '../../support/decisions.js';
import { createRunningSession, createUser } from '../../support/fixtures.js';
import { addMember } from '../../support/routing.js';

interface User {
  id: string;
  token: string;
}

interface Worker {
  workspaceId: string;
  sessionId: string;
  pendingId: string;
  decisionRef: string;
}

const PARALLEL = 6;

describe('answer_decision: request ids are per caller', () => {
  let t: TestApp;
  let alice: User;
  let bob: User;
  let receipts: CommandReceiptRepository;
  let resolver: ResolveBundleService;
  let commandSends = 0;
  let restoreResolver: () => void;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    alice = await createUser(t, 'alice');
    bob = await createUser(t, 'bob');
    receipts = t.app.get(CommandReceiptRepository);
    resolver = t.app.get(ResolveBundleService);
    const resolve = resolver.resolve.bind(resolver);
    resolver.resolve = (caller, pendingId, input, surface) => {
      if (surface === 'command') commandSends += 1;
      return resolve(caller, pendingId, input, surface);
    };
    restoreResolver = () => {
      delete (resolver as Partial<ResolveBundleService>).resolve;
    };
  });
  afterAll(async () => {
    restoreResolver();
    await t.close();
  });

  /** A running session of `owner`'s own workspace with one pending single-choice decision. */
  async function worker(owner: User): Promise<Worker> {
    const fixture = await createRunningSession(t, { bearer: owner.token });
    const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()], owner.token);
    return { workspaceId: fixture.workspaceId, sessionId: fixture.sessionId, pendingId, decisionRef: await decisionRefOf(t, fixture.sessionId, owner.token) };
  }

  async function statuses(pendingId: string): Promise<unknown[]> {
    const { rows } = await t.db.query<{ status: string; response: unknown }>(
      `SELECT metadata->>'status' AS status, metadata->'response' AS response FROM task_session_messages
        WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'`,
      [pendingId],
    );
    return rows;
  }

  async function receiptCount(requestId: string): Promise<number> {
    const { rows } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM command_receipts WHERE request_id = $1`, [requestId]);
    return rows[0]?.n ?? -1;
  }

  function outcome(result: CommandResult) {
    return { http: result.httpStatus, status: result.body.status, disposition: result.body.disposition };
  }

  it('another user spending a request_id first does not make it a duplicate_request for its owner', async () => {
    const mine = await worker(alice);
    const theirs = await worker(bob);
    // The docs' own example id (a chat message id): easy to guess, and bob uses it first.
    const spent = await command(t, answerRequest(theirs.sessionId, theirs.decisionRef, { requestId: 'tg-4711' }), bob.token);
    expect(outcome(spent)).toEqual({ http: 200, status: 'accepted', disposition: 'terminal_accepted' });

    const answered = await command(t, answerRequest(mine.sessionId, mine.decisionRef, { requestId: 'tg-4711', selection: { option_refs: ['1'] } }), alice.token);
    expect(outcome(answered)).toEqual({ http: 200, status: 'accepted', disposition: 'terminal_accepted' });
    expect(answered.body.result).toMatchObject({ pending_id: mine.pendingId });
    expect(await statuses(mine.pendingId)).toEqual([{ status: 'answered', response: { question_id: 'db', selected_options: ['postgres'], custom_text: '' } }]);
    // Each keeps its own receipt, replayed to it alone.
    expect((await command(t, answerRequest(theirs.sessionId, theirs.decisionRef, { requestId: 'tg-4711' }), bob.token)).text).toBe(spent.text);
    expect(
      (await command(t, answerRequest(mine.sessionId, mine.decisionRef, { requestId: 'tg-4711', selection: { option_refs: ['1'] } }), alice.token)).text,
    ).toBe(answered.text);
    expect(await receiptCount('tg-4711')).toBe(2);
  });

  it("another user's exact command gets that user's own evaluation — the 404 of a never-seen worker — never the stored envelope", async () => {
    const mine = await worker(alice);
    const body = answerRequest(mine.sessionId, mine.decisionRef, { requestId: 'tg-5000' });
    const answered = await command(t, body, alice.token);
    expect(answered.body.status).toBe('accepted');
    const sends = commandSends;

    const copied = await command(t, body, bob.token);
    const neverSeen = await command(t, answerRequest('worker-never-seen', mine.decisionRef, { requestId: 'tg-5000' }), bob.token);
    expect(outcome(copied)).toEqual({ http: 404, status: 'unknown_worker', disposition: 'no_receipt' });
    expect({ http: copied.httpStatus, text: copied.text }).toEqual({ http: neverSeen.httpStatus, text: neverSeen.text });
    expect(copied.text).not.toContain(mine.pendingId);
    expect(commandSends).toBe(sends);
    expect(await receiptCount('tg-5000')).toBe(1);
    // The owner's replay is untouched.
    expect((await command(t, body, alice.token)).text).toBe(answered.text);
  });

  it('the same caller reusing its own request_id still replays (byte for byte, nothing resent) and deduplicates', async () => {
    const mine = await worker(alice);
    const other = await worker(alice);
    const body = answerRequest(mine.sessionId, mine.decisionRef, { requestId: 'tg-6000' });
    const first = await command(t, body, alice.token);
    expect(first.body.status).toBe('accepted');
    const sends = commandSends;
    expect((await command(t, body, alice.token)).text).toBe(first.text);
    const reused = await command(t, answerRequest(other.sessionId, other.decisionRef, { requestId: 'tg-6000' }), alice.token);
    expect(outcome(reused)).toEqual({ http: 409, status: 'duplicate_request', disposition: 'terminal_rejected' });
    expect(commandSends).toBe(sends);
    expect((await statuses(other.pendingId)).map((row) => (row as { status: string }).status)).toEqual(['pending']);
  });

  it("a workspace member sending the owner's in-flight request_id waits behind the owner's claim — never takes it, never sees its receipt", async () => {
    const mine = await worker(alice);
    expect((await addMember(t, mine.workspaceId, bob.id)).status).toBe(200);
    const stranger = await createUser(t, 'mallory');
    const ownerBody = answerRequest(mine.sessionId, mine.decisionRef, { requestId: 'tg-7000' });
    let stepped = false;
    let during: { member: CommandResult; stranger: CommandResult } | undefined;
    const markSendStarted = receipts.markSendStarted.bind(receipts);
    // Alice has reserved and claimed the decision; her send has not started.
    receipts.markSendStarted = async (owner, ...rest) => {
      if (!stepped) {
        stepped = true;
        during = {
          member: await command(t, answerRequest(mine.sessionId, mine.decisionRef, { requestId: 'tg-7000', selection: { option_refs: ['1'] } }), bob.token),
          stranger: await command(t, ownerBody, stranger.token),
        };
      }
      return markSendStarted(owner, ...rest);
    };
    let answered: CommandResult;
    try {
      answered = await command(t, ownerBody, alice.token);
    } finally {
      delete (receipts as Partial<CommandReceiptRepository>).markSendStarted;
    }
    expect(outcome(during?.member as CommandResult)).toEqual({ http: 409, status: 'answer_in_progress', disposition: 'no_receipt' });
    expect(outcome(during?.stranger as CommandResult)).toEqual({ http: 404, status: 'unknown_worker', disposition: 'no_receipt' });
    expect(outcome(answered)).toEqual({ http: 200, status: 'accepted', disposition: 'terminal_accepted' });
    expect(await statuses(mine.pendingId)).toEqual([{ status: 'answered', response: { question_id: 'db', selected_options: ['sqlite'], custom_text: '' } }]);
    // Once answered, the member's own evaluation of the same id: the decision is no longer pending.
    const late = await command(t, ownerBody, bob.token);
    expect(outcome(late)).toEqual({ http: 409, status: 'decision_not_pending', disposition: 'no_receipt' });
    expect(late.text).not.toBe(answered.text);
  });

  it(`${PARALLEL} concurrent connections with one caller's request_id: one send, one receipt, one accepted result`, async () => {
    const mine = await worker(alice);
    const body = answerRequest(mine.sessionId, mine.decisionRef, { requestId: 'tg-8000' });
    const sends = commandSends;
    // Every request is held at its receipt lookup until all of them are inside the server at once.
    let arrived = 0;
    let together = false;
    let releaseAll: () => void = () => undefined;
    const allIn = new Promise<void>((resolve) => (releaseAll = resolve));
    const timeout = setTimeout(releaseAll, 10_000);
    const find = receipts.find.bind(receipts);
    receipts.find = async (...args) => {
      arrived += 1;
      if (arrived === PARALLEL) {
        together = true;
        releaseAll();
      }
      await allIn;
      return find(...args);
    };
    let results: CommandResult[];
    try {
      results = await Promise.all(Array.from({ length: PARALLEL }, () => command(t, body, alice.token)));
    } finally {
      clearTimeout(timeout);
      delete (receipts as Partial<CommandReceiptRepository>).find;
    }
    expect(together).toBe(true);
    const accepted = results.filter((result) => result.body.status === 'accepted');
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((result) => result.text)).size).toBe(1);
    // The others were told to retry, or (checked before the winner reserved) what is true now — never a duplicate, never stored.
    for (const other of results.filter((result) => result.body.status !== 'accepted')) {
      expect([
        { http: 202, status: 'pending', disposition: 'in_progress' },
        { http: 409, status: 'answer_in_progress', disposition: 'no_receipt' },
        { http: 409, status: 'decision_not_pending', disposition: 'no_receipt' },
      ]).toContainEqual(outcome(other));
    }
    expect(commandSends - sends).toBe(1);
    expect(await receiptCount('tg-8000')).toBe(1);
    expect(await statuses(mine.pendingId)).toEqual([{ status: 'answered', response: { question_id: 'db', selected_options: ['sqlite'], custom_text: '' } }]);
    expect((await command(t, body, alice.token)).text).toBe(accepted[0]?.text);
  });
});
