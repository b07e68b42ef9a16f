/**
 * answer_decision while another request holds the decision, with the winner's resume webhook held
 * open: the claim window (a request reserved, then lost the decision claim to a winner whose send has
 * started) and the send window (the winner's bundle is claimed and its resume is in flight, so the
 * bundle is `response_delivery_pending`, not active). In both, a competing request — fresh or a
 * claim-time loser's retry — is answered `answer_in_progress` (`no_receipt`, or `in_progress` with its
 * reservation kept), never a terminal receipt, and the worker stays listed with the same decision.
 * Then the resume is refused: the winner's claim is rolled back, the decision is pending again under
 * the same decision_ref, and the competitor's retry (same request_id) is accepted.
 *
 * In one process, and across replicas on one database: the winner on one spawned server, the
 * competitor (and the claim-time loser's retries) on another, the claim-time loser arranged in-process.
 */
import { CommandReceiptRepository, type Ownership } from '#decisions';
import { startApp, type TestApp } from '../../support/app.js';
import { answerRequest, ask, command, type CommandResult, databaseQuestion, decisionRefOf, interactionOf } from '../../support/decisions.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession } from '../../support/fixtures.js';
import { killAllServers, type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { type Responder, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

/** Where a request is sent: the in-process app or a spawned server. */
type Server = Pick<TestApp, 'baseUrl'>;

/** Bound on starting spawned servers: they start slowly on a loaded machine. */
const SLOW_MACHINE_MS = 240_000;
const POSTGRES = { question_id: 'db', selected_options: ['postgres'], custom_text: '' };
const SQLITE = { question_id: 'db', selected_options: ['sqlite'], custom_text: '' };

/** A resume webhook that holds its first POST until `refuse()` answers it 503; every later POST is accepted. */
async function heldWebhook(): Promise<{ hook: WebhookReceiver; refuse: () => void; held: () => Promise<void> }> {
  let refuse!: () => void;
  const refused = new Promise<number>((resolve) => (refuse = () => resolve(503)));
  const responder: Responder = (_post, index) => (index === 0 ? refused : 202);
  const hook = await startWebhookReceiver(responder);
  const held = async () => {
    await eventually(() => (hook.posts.length > 0 ? true : undefined), 20_000, "the winner's resume POST");
  };
  return { hook, refuse, held };
}

describe('answer_decision while the winner’s resume is in flight', () => {
  let t: TestApp;
  const hooks: WebhookReceiver[] = [];
  /** Every winner still in flight is let go after its test, passed or failed (nothing is left hanging). */
  const inFlight: Array<{ refuse: () => void; winner?: Promise<CommandResult> }> = [];

  beforeAll(async () => {
    t = await startApp();
  });
  afterEach(async () => {
    for (const held of inFlight.splice(0)) {
      held.refuse();
      await held.winner?.catch(() => undefined);
    }
  });
  afterAll(async () => {
    await Promise.all(hooks.map((hook) => hook.close()));
    await t.close();
  });

  async function worker() {
    const webhook = await heldWebhook();
    hooks.push(webhook.hook);
    const fixture = await createRunningSession(t, { resumeUrl: webhook.hook.url });
    const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()]);
    return { ...webhook, sessionId: fixture.sessionId, pendingId, decisionRef: await decisionRefOf(t, fixture.sessionId) };
  }

  async function receipt(requestId: string): Promise<{ state: string; status: string; envelope: string | null } | undefined> {
    const { rows } = await t.db.query(`SELECT state, status, envelope FROM command_receipts WHERE request_id = $1`, [requestId]);
    return rows[0] as { state: string; status: string; envelope: string | null } | undefined;
  }

  async function bundle(pendingId: string): Promise<Array<{ status: string; delivering: boolean; response: unknown }>> {
    const { rows } = await t.db.query(
      `SELECT metadata->>'status' AS status, metadata->>'response_delivery_pending' = 'true' AS delivering, metadata->'response' AS response
         FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'`,
      [pendingId],
    );
    return (rows as Array<{ status: string; delivering: boolean | null; response: unknown }>).map((row) => ({ ...row, delivering: row.delivering === true }));
  }

  type Worker = Awaited<ReturnType<typeof worker>>;

  /** The winner's refused resume: 500 request_state_uncertain, and its claim rolled back — pending again, same decision. */
  async function refuseWinner(w: Worker, winner: Promise<CommandResult>, listedOn: Server): Promise<void> {
    w.refuse();
    const refused = await winner;
    expect(refused.httpStatus).toBe(500);
    expect(refused.body).toMatchObject({ ok: false, status: 'request_state_uncertain', disposition: 'terminal_uncertain' });
    expect(await bundle(w.pendingId)).toEqual([{ status: 'pending', delivering: false, response: null }]);
    expect((await interactionOf(listedOn, w.sessionId))?.meta.decision?.decision_ref).toBe(w.decisionRef);
  }

  /** The send window: a fresh competing request while the winner's resume is held. */
  async function sendWindow(tag: string, winnerOn: Server, competitorOn: Server): Promise<void> {
    const w = await worker();
    const winner = command(winnerOn, answerRequest(w.sessionId, w.decisionRef, { requestId: `${tag}-winner` }));
    inFlight.push({ refuse: w.refuse, winner });
    await w.held();
    expect(await bundle(w.pendingId)).toEqual([{ status: 'answered', delivering: true, response: SQLITE }]);

    const competitorBody = answerRequest(w.sessionId, w.decisionRef, { requestId: `${tag}-competitor`, selection: { option_refs: ['1'] } });
    const competitor = await command(competitorOn, competitorBody);
    expect(competitor.httpStatus).toBe(409);
    expect(competitor.body).toMatchObject({ ok: false, status: 'answer_in_progress', disposition: 'no_receipt', request_id: `${tag}-competitor` });
    expect(await receipt(`${tag}-competitor`)).toBeUndefined();
    // Being answered, not gone: still listed, with the same decision.
    expect((await interactionOf(competitorOn, w.sessionId))?.meta.decision?.decision_ref).toBe(w.decisionRef);

    await refuseWinner(w, winner, competitorOn);
    const retried = await command(competitorOn, competitorBody);
    expect(retried.body).toMatchObject({ ok: true, status: 'accepted', disposition: 'terminal_accepted' });
    expect(await bundle(w.pendingId)).toEqual([{ status: 'answered', delivering: false, response: POSTGRES }]);
    expect(w.hook.posts.map((post) => post.status)).toEqual([503, 202]);
  }

  /**
   * The claim window: `loserOn` (in-process, so its claim can be stepped into) reserves, then the
   * winner on `winnerOn` claims and sends before the loser's claim runs; the loser's retries go to `retryOn`.
   */
  async function claimWindow(tag: string, loserOn: TestApp, winnerOn: Server, retryOn: Server): Promise<void> {
    const w = await worker();
    const loserId = `${tag}-loser`;
    const loserBody = answerRequest(w.sessionId, w.decisionRef, { requestId: loserId, selection: { option_refs: ['1'] } });
    const receipts = loserOn.app.get(CommandReceiptRepository);
    const claim = receipts.claim.bind(receipts);
    let winner: Promise<CommandResult> | undefined;
    receipts.claim = async (owner: Ownership, ...rest) => {
      if (owner.requestId === loserId && winner === undefined) {
        winner = command(winnerOn, answerRequest(w.sessionId, w.decisionRef, { requestId: `${tag}-winner` }));
        inFlight.push({ refuse: w.refuse, winner });
        await w.held();
      }
      return claim(owner, ...rest);
    };
    let lost: CommandResult;
    try {
      lost = await command(loserOn, loserBody);
    } finally {
      delete (receipts as Partial<CommandReceiptRepository>).claim;
    }
    expect(lost.httpStatus).toBe(409);
    expect(lost.body).toMatchObject({ ok: false, status: 'answer_in_progress', disposition: 'in_progress' });
    expect(await receipt(loserId)).toEqual({ state: 'reserved', status: 'pending', envelope: null });

    // Its retry during the send window: still in progress, the reservation kept (never terminal).
    const retry = await command(retryOn, loserBody);
    expect(retry.httpStatus).toBe(409);
    expect(retry.body).toMatchObject({ ok: false, status: 'answer_in_progress', disposition: 'in_progress', request_id: loserId });
    expect(await receipt(loserId)).toEqual({ state: 'reserved', status: 'pending', envelope: null });
    expect((await interactionOf(retryOn, w.sessionId))?.meta.decision?.decision_ref).toBe(w.decisionRef);

    await refuseWinner(w, winner as Promise<CommandResult>, retryOn);
    const accepted = await command(retryOn, loserBody);
    expect(accepted.body).toMatchObject({ ok: true, status: 'accepted', disposition: 'terminal_accepted', request_id: loserId });
    expect((await receipt(loserId))?.state).toBe('accepted');
    expect(await bundle(w.pendingId)).toEqual([{ status: 'answered', delivering: false, response: POSTGRES }]);
    expect(w.hook.posts.map((post) => post.status)).toEqual([503, 202]);
  }

  describe('in one process', () => {
    it('send window: a competing request is answer_in_progress / no_receipt and the worker stays listed; after the refused resume it is accepted', async () => {
      await sendWindow('local-send', t, t);
    });

    it('claim window: a claim-time loser’s retry during the send is answer_in_progress / in_progress, its reservation kept; then accepted', async () => {
      await claimWindow('local-claim', t, t, t);
    });
  });

  describe('across two replicas on one database', () => {
    let a: ServerProcess;
    let b: ServerProcess;

    beforeAll(async () => {
      [a, b] = await Promise.all([startServerProcess({ env: { DATABASE_URL: t.databaseUrl } }), startServerProcess({ env: { DATABASE_URL: t.databaseUrl } })]);
    }, SLOW_MACHINE_MS);
    afterAll(async () => {
      await killAllServers();
    });

    it('send window: the winner on one replica, the competitor on the other — answer_in_progress, still listed; then accepted', async () => {
      await sendWindow('replica-send', a, b);
    });

    it('claim window: the claim-time loser’s retry on another replica than the winner’s stays in_progress; then accepted', async () => {
      await claimWindow('replica-claim', t, a, b);
    });
  });
});
