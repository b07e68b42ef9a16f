/**
 * Across replicas: the hand-off of a winner's answer to the replica holding the
 * agent's live wait. Two application instances (A holds the agent's wait, B takes the answer) on one
 * database; the interleavings the three-replica race hits by chance are made explicit here:
 * - A's own (losing) attempt on the bundle is in flight when B's hand-off arrives: A takes the
 *   hand-off once its attempt is done — it is not dropped (the agent would be resumed instead);
 * - the hand-off's signal is missed: A's sweeper delivers it — it never rolls back a hand-off
 *   addressed to it while its agent waits (B's caller would get a 500 for nothing);
 * - B stalls after its claim, which is rolled back and then won by another answer: B is told
 *   claimed:false with that answer, never claimed:true for an answer that did not win.
 */
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { BundleRepository, BundleSignals, ClaimRepository, DeliverySweeper } from '#clarification/testing';
import { ProcessLease } from '#persistence';
import { startApp, type TestApp } from '../support/app.js';
import { isRestored, resumePrompts, resumeTurns, rowsOf, settlement } from '../support/bundle-state.js';
import { QUIET_LEASE } from '../support/claim.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../support/fixtures.js';

const FROM_A = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'through A' },
];
const FROM_B = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'through B' },
];
const CONFIG = { deliveryConfirmTimeoutMs: 1_000, resumeTimeoutMs: 2_000, waitTimeoutMs: 30_000, ...QUIET_LEASE };

describe('the hand-off to the replica holding the agent’s wait, under races', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startApp({ config: CONFIG });
    b = await startApp({ databaseUrl: a.databaseUrl, config: CONFIG });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  /** A bundle whose agent waits on A (auth disabled: a long poll is the agent's wait). */
  async function agentWaitingOnA(): Promise<{ pendingId: string; reply: Promise<request.Response> }> {
    const fixture = await createRunningSession(a);
    const asked = await request(a.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    const pendingId = asked.body.pending_id as string;
    const reply = request(a.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).then((res) => res);
    await eventually(async () => ((await a.db.query(`SELECT 1 FROM clarification_waiters WHERE pending_id = $1`, [pendingId])).rows.length === 1 ? true : undefined));
    return { pendingId, reply };
  }

  const respond = (app: TestApp, pendingId: string, answers: unknown) =>
    request(app.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers }).then((res) => res);

  /** Delivered live to the agent on A: its wait got `answers`, no resume was made. */
  async function expectDeliveredLive(pendingId: string, reply: Promise<request.Response>, answers: unknown): Promise<void> {
    const waited = await reply;
    expect({ status: waited.status, answers: waited.body.answers }).toEqual({ status: 200, answers });
    expect(await resumeTurns(a.db, pendingId)).toEqual([]);
    expect(await resumePrompts(a.db, pendingId)).toEqual([]);
    const { rows } = await a.db.query(`SELECT payload->>'delivery' AS delivery FROM question_events WHERE pending_id = $1 AND type = 'ANSWERED'`, [pendingId]);
    expect(rows).toEqual([{ delivery: 'live_waiter' }]);
  }

  it('A’s own losing attempt is in flight when B’s hand-off arrives: A takes it once its attempt is done', async () => {
    const { pendingId, reply } = await agentWaitingOnA();
    const claims = a.app.get(ClaimRepository);
    const signals = a.app.get(BundleSignals);
    const self = a.app.get(ProcessLease).id;
    let handedOff!: () => void;
    const handoffArrived = new Promise<void>((resolve) => (handedOff = resolve));
    const unsubscribe = signals.subscribe((signal) => {
      if (signal.pending_id === pendingId && signal.kind === 'deliver' && signal.owner === self) handedOff();
    });
    let entered!: () => void;
    const attempting = new Promise<void>((resolve) => (entered = resolve));
    const claim = claims.lockSession.bind(claims);
    // A's attempt holds on until B's hand-off has reached A (so it arrives while A's attempt is in flight).
    claims.lockSession = async (...args) => {
      entered();
      await handoffArrived;
      return claim(...args);
    };
    try {
      const fromA = respond(a, pendingId, FROM_A);
      await attempting;
      const fromB = await respond(b, pendingId, FROM_B);
      expect({ status: fromB.status, claimed: fromB.body.claimed }).toEqual({ status: 200, claimed: true });
      expect((await fromA).body).toMatchObject({ claimed: false, status: 'answered', response: { answers: FROM_B } });
      await expectDeliveredLive(pendingId, reply, FROM_B);
    } finally {
      unsubscribe();
      delete (claims as Partial<ClaimRepository>).lockSession;
    }
  });

  it('the hand-off’s signal is missed: A’s sweeper delivers it to the waiting agent instead of rolling it back', async () => {
    const { pendingId, reply } = await agentWaitingOnA();
    const signals = a.app.get(BundleSignals);
    const dispatch = signals.dispatch.bind(signals);
    let missed = false;
    signals.dispatch = (signal) => {
      if (signal.pending_id === pendingId && signal.kind === 'deliver') missed = true;
      else dispatch(signal);
    };
    try {
      const fromB = respond(b, pendingId, FROM_B);
      await eventually(() => (missed ? true : undefined), 5_000, 'the hand-off signal');
      await a.app.get(DeliverySweeper).sweep();
      const won = await fromB;
      expect({ status: won.status, body: won.body }).toMatchObject({ status: 200, body: { claimed: true, response: { answers: FROM_B } } });
      await expectDeliveredLive(pendingId, reply, FROM_B);
    } finally {
      delete (signals as Partial<BundleSignals>).dispatch;
    }
  });

  it('B stalls after its claim, which A rolls back and another answer then wins: B is told claimed:false with that answer', async () => {
    const { pendingId, reply } = await agentWaitingOnA();
    // A's delivery confirmation of B's answer fails (inside PostgreSQL), so A rolls B's claim back.
    // (A sequence counts the refusals: nextval survives the failing transaction.)
    await a.db.query(`CREATE SEQUENCE test_refusals`);
    await a.db.query(`
      CREATE OR REPLACE FUNCTION test_refuse_confirmation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.metadata->>'pending_id' = TG_ARGV[0] AND OLD.metadata ? 'response_delivery_pending'
           AND NOT NEW.metadata ? 'response_delivery_pending' AND NEW.metadata->>'status' = 'answered' THEN
          PERFORM nextval('test_refusals');
          RAISE EXCEPTION 'test: the delivery confirmation fails';
        END IF;
        RETURN NEW;
      END $$`);
    await a.db.query(`CREATE TRIGGER test_refuse_confirmation BEFORE UPDATE ON task_session_messages FOR EACH ROW EXECUTE FUNCTION test_refuse_confirmation('${pendingId}')`);
    // B's first read after its claim comes only once the bundle is final again (B stalled meanwhile).
    const bundles = b.app.get(BundleRepository);
    const read = bundles.findBundleState.bind(bundles);
    let stalled = false;
    bundles.findBundleState = async (id, ...rest) => {
      if (id === pendingId && !stalled) {
        stalled = true;
        await eventually(async () => (settlement(await rowsOf(b.db, pendingId)) === 'final' ? true : undefined), 10_000, 'another winner');
      }
      return read(id, ...rest);
    };
    try {
      const fromB = respond(b, pendingId, FROM_B);
      await eventually(
        async () => {
          const { rows } = await a.db.query<{ is_called: boolean }>(`SELECT is_called FROM test_refusals`);
          return rows[0]?.is_called && isRestored(await rowsOf(a.db, pendingId)) ? true : undefined;
        },
        5_000,
        'B’s claim refused by A and rolled back',
      );
      await a.db.query(`DROP TRIGGER test_refuse_confirmation ON task_session_messages`);
      await a.db.query(`DROP FUNCTION test_refuse_confirmation()`);
      await a.db.query(`DROP SEQUENCE test_refusals`);
      expect(a.app.get(WaiterStore).waiterCount(pendingId)).toBe(1);

      const fromA = await respond(a, pendingId, FROM_A);
      expect(fromA.body).toMatchObject({ claimed: true, response: { answers: FROM_A } });
      const told = await fromB;
      expect(stalled).toBe(true);
      expect({ status: told.status, body: told.body }).toMatchObject({ status: 200, body: { claimed: false, status: 'answered', response: { answers: FROM_A } } });
      await expectDeliveredLive(pendingId, reply, FROM_A);
    } finally {
      delete (bundles as Partial<BundleRepository>).findBundleState;
    }
  });
});
