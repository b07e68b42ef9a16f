import { type Answer } from '#clarification';
import { BundleRepository, ClarificationStatus, type TerminalStatus } from '#clarification/testing';
import { startApp, type TestApp } from '../../support/app.js';
import { claimer, holdTestOwnerLease, markDispatchAttempted, QUIET_LEASE, reserveSuccessor, TEST_OWNER, TEST_WINNER } from '../../support/claim.js';
import {
  at,
  type Db,
  insertBundle,
  insertMessage,
  insertSession,
  insertTurn,
  type LiveBundle,
  type QuestionSpec,
  rowsById,
  rowsOfPendingId,
  rowsOfSession,
  seedLiveBundle,
  setSessionState,
  type StoredRow,
  uid,
  answer,
  answersFor,
} from '../../support/bundles.js';
import { eventually } from '../../support/eventually.js';

/**
 * The lifecycle rules, "One activeness rule" and "The claim": every case is arranged with SQL
 * and judged by the rows in the database, not only by what `completeActiveBundle` returns.
 */

const { Answered, Rejected } = ClarificationStatus;

/** True once a backend of this test's database waits for a lock (the claim queued behind the writer). */
async function blockedOnLock(db: Db): Promise<true | undefined> {
  const { rows } = await db.query<{ waiting: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock') AS waiting`,
  );
  return rows[0]?.waiting ? true : undefined;
}

/** What a winning claim writes on top of a row's metadata. */
function claimedMetadata(before: StoredRow, terminal: TerminalStatus, response?: Answer): Record<string, unknown> {
  return {
    ...before.metadata,
    status: terminal,
    response_delivery_pending: true,
    delivery_owner: TEST_OWNER,
    resolved_by: { ...TEST_WINNER, name: null, at: expect.any(String) },
    // Written by the claim statement with the resolution (the test claim's seal signs nothing).
    receipt: 'test-receipt',
    ...(response ? { response } : {}),
  };
}

describe('the claim and the one activeness rule (baseline "One activeness rule", "The claim")', () => {
  let t: TestApp;
  let repo: BundleRepository;
  let claims: ReturnType<typeof claimer>;

  beforeAll(async () => {
    t = await startApp({ config: QUIET_LEASE });
    await holdTestOwnerLease(t);
    repo = t.app.get(BundleRepository);
    claims = claimer(t);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Claims with both outcomes and expects neither to win nor to write anything. */
  async function expectNotClaimable(pendingId: string, sessionIds: readonly string[], questionIds: readonly string[] = ['q1', 'q2']) {
    const snapshot = async () => (await Promise.all(sessionIds.map((id) => rowsOfSession(t.db, id)))).flat();
    const before = await snapshot();
    expect(await claims.completeActiveBundle(pendingId, Answered, answersFor(questionIds, 'late'))).toEqual({ claimed: false, rows: [] });
    expect(await claims.completeActiveBundle(pendingId, Rejected, undefined)).toEqual({ claimed: false, rows: [] });
    expect(await snapshot()).toEqual(before);
  }

  /** The consumers that must agree with the claim: the bundle probe, the session guard, the pending list. */
  async function consumers(pendingId: string, sessionId: string) {
    return {
      isBundleActive: await repo.isBundleActive(pendingId),
      sessionHasActiveBundle: await repo.sessionHasActiveBundle(sessionId),
      listedAsActive: (await repo.findActiveBundlesOfSession(sessionId)).flat().some((row) => row.metadata.pending_id === pendingId),
    };
  }

  it('claims exactly once under 16 concurrent claimers with mixed outcomes; the rows carry only the winner', async () => {
    for (let round = 0; round < 10; round += 1) {
      const bundle = await seedLiveBundle(t.db, { questions: 3 });
      const questionIds = bundle.questionIds as string[];
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      const claimers = Array.from({ length: 16 }, (_, index) => {
        const terminal: TerminalStatus = (index + round) % 2 === 0 ? Answered : Rejected;
        return { index, terminal, responses: terminal === Answered ? answersFor(questionIds, `claimer ${index}`) : undefined };
      });

      const results = await Promise.all(
        claimers.map((claimer) => claims.completeActiveBundle(bundle.pendingId, claimer.terminal, claimer.responses)),
      );

      const winners = claimers.filter((_, index) => results[index]?.claimed === true);
      expect(winners).toHaveLength(1);
      expect(results.filter((result) => !result.claimed)).toEqual(Array.from({ length: 15 }, () => ({ claimed: false, rows: [] })));
      const winner = winners[0];
      const expected = before.map((row, index) =>
        claimedMetadata(row, winner.terminal, winner.responses?.get(questionIds[index])),
      );
      const after = await rowsOfPendingId(t.db, bundle.pendingId);
      expect(after.map((row) => row.metadata)).toEqual(expected);
      expect(after.every((row) => row.metadata.response_delivery_pending === true)).toBe(true);
      expect(results[winner.index].rows.map((row) => row.metadata)).toEqual(expected);
    }
  });

  it('a bundle on a superseded turn is not claimable and its rows stay byte-identical (started_at outranks created_at)', async () => {
    const bundle = await seedLiveBundle(t.db);
    // Turn B started later but was created earlier: started_at decides.
    const turnB = await insertTurn(t.db, { ...bundle, startedAt: at(10), createdAt: at(-100) });
    expect(await repo.currentTurnId(bundle.sessionId)).toBe(turnB);
    await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);
    const rows = await rowsOfPendingId(t.db, bundle.pendingId);
    expect(rows.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
  });

  it.each(['COMPLETED', 'FAILED', 'CANCELLED'])('a bundle of a %s (terminal) session is not claimable and nothing is written', async (state) => {
    const bundle = await seedLiveBundle(t.db, { state });
    await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);
  });

  it.each(['CREATED', 'STARTING', 'RUNNING', 'IDLE', 'WAITING_FOR_INPUT'])('a bundle of a %s (live) session is claimable', async (state) => {
    const bundle = await seedLiveBundle(t.db, { state });
    const result = await claims.completeActiveBundle(bundle.pendingId, Rejected, undefined);
    expect(result.claimed).toBe(true);
    expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
  });

  it('a detached bundle (agent_disconnected=true) stays claimable', async () => {
    const detached = { extra: { agent_disconnected: true } };
    const bundle = await seedLiveBundle(t.db, { questions: [detached, detached] });
    const before = await rowsOfPendingId(t.db, bundle.pendingId);
    const result = await claims.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2'], 'after detach'));
    expect(result.claimed).toBe(true);
    const after = await rowsOfPendingId(t.db, bundle.pendingId);
    expect(after.map((row) => row.metadata)).toEqual([
      claimedMetadata(before[0], Answered, answer('q1', 'after detach')),
      claimedMetadata(before[1], Answered, answer('q2', 'after detach')),
    ]);
    expect(after.map((row) => row.metadata.agent_disconnected)).toEqual([true, true]);
  });

  it('a mixed legacy bundle: only the pending and status-less rows are claimed, answered and unrecognized rows are untouched', async () => {
    const bundle = await seedLiveBundle(t.db, {
      questions: [
        { status: 'answered', extra: { response: answer('q1', 'legacy') } },
        { status: 'pending' },
        { status: null },
        { status: 'weird' },
      ],
    });
    const before = await rowsOfPendingId(t.db, bundle.pendingId);
    expect(before[2].metadata).not.toHaveProperty('status');

    // Responses for q2 and q3 only: had q1 or q4 been claimed, the missing response would abort the claim.
    const result = await claims.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q2', 'q3'], 'mixed'));

    expect(result.claimed).toBe(true);
    expect(result.rows.map((row) => row.id)).toEqual([bundle.rowIds[1], bundle.rowIds[2]]);
    const after = await rowsOfPendingId(t.db, bundle.pendingId);
    expect(after[0]).toEqual(before[0]);
    expect(after[3]).toEqual(before[3]);
    expect(after[1].metadata).toEqual(claimedMetadata(before[1], Answered, answer('q2', 'mixed')));
    expect(after[2].metadata).toEqual(claimedMetadata(before[2], Answered, answer('q3', 'mixed')));
  });

  it('a bundle whose rows are all non-pending (answered, rejected, expired, cancelled, responding, unrecognized) is not claimable', async () => {
    const bundle = await seedLiveBundle(t.db, {
      questions: [
        { status: 'answered', extra: { response: answer('q1', 'old') } },
        { status: 'rejected' },
        { status: 'expired' },
        { status: 'cancelled' },
        { status: 'responding' },
        { status: 'PENDING' },
      ],
    });
    await expectNotClaimable(bundle.pendingId, [bundle.sessionId], ['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
  });

  describe('a malformed bundle is not claimable and nothing is written', () => {
    it('a row of the same pending_id on another (older) turn of the session', async () => {
      const session = await insertSession(t.db);
      const olderTurn = await insertTurn(t.db, { ...session, startedAt: at(-10) });
      const turnId = await insertTurn(t.db, { ...session, startedAt: at(0) });
      const bundle = await insertBundle(t.db, { ...session, turnId, createdAt: at(1) });
      await insertBundle(t.db, { ...session, turnId: olderTurn, createdAt: at(-5), pendingId: bundle.pendingId, questions: 1 });
      await expectNotClaimable(bundle.pendingId, [session.sessionId]);
    });

    it('a row of the same pending_id without a turn', async () => {
      const bundle = await seedLiveBundle(t.db);
      await insertMessage(t.db, {
        ...bundle,
        turnId: null,
        type: 'clarification_request',
        metadata: { pending_id: bundle.pendingId, question_id: 'q3', status: 'pending' },
        createdAt: at(2),
      });
      await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);
    });

    it('a row of the same pending_id in another session', async () => {
      const bundle = await seedLiveBundle(t.db);
      const other = await insertSession(t.db);
      const otherTurn = await insertTurn(t.db, { ...other, startedAt: at(0) });
      await insertBundle(t.db, { ...other, turnId: otherTurn, createdAt: at(1), pendingId: bundle.pendingId, questions: 1 });
      await expectNotClaimable(bundle.pendingId, [bundle.sessionId, other.sessionId]);
    });

    it('a row of the same pending_id in another session that points at the same turn id (corrupt)', async () => {
      const bundle = await seedLiveBundle(t.db);
      const other = await insertSession(t.db);
      await insertTurn(t.db, { ...other, startedAt: at(0) });
      await insertBundle(t.db, { ...other, turnId: bundle.turnId, createdAt: at(2), pendingId: bundle.pendingId, questions: 1 });
      await expectNotClaimable(bundle.pendingId, [bundle.sessionId, other.sessionId]);
    });

    it('a row of the same pending_id of another type', async () => {
      const bundle = await seedLiveBundle(t.db);
      await insertMessage(t.db, {
        ...bundle,
        type: 'message',
        metadata: { pending_id: bundle.pendingId, status: 'pending' },
        createdAt: at(2),
      });
      await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);
    });
  });

  it.each([
    ['rejected', Rejected, undefined],
    ['answered', Answered, answersFor(['q1'], 'x')],
  ] as const)('a claimable row without question_id makes the %s claim throw and writes nothing (rolled back)', async (_name, terminal, responses) => {
    const bundle = await seedLiveBundle(t.db, { questions: [{}, { questionId: null }] });
    const before = await rowsOfPendingId(t.db, bundle.pendingId);
    await expect(claims.completeActiveBundle(bundle.pendingId, terminal, responses)).rejects.toThrow(
      `clarification message ${bundle.rowIds[1]} is missing question_id`,
    );
    // Row 1 was already written inside the transaction: the rollback must have undone it too.
    expect(await rowsOfPendingId(t.db, bundle.pendingId)).toEqual(before);
    expect(before.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
    expect(await repo.isBundleActive(bundle.pendingId)).toBe(true);
  });

  it('an answered claim without a response for a question throws and writes nothing', async () => {
    const bundle = await seedLiveBundle(t.db, { questions: 3 });
    const before = await rowsOfPendingId(t.db, bundle.pendingId);
    const missingQ3 = answersFor(['q1', 'q2'], 'partial');
    await expect(claims.completeActiveBundle(bundle.pendingId, Answered, missingQ3)).rejects.toThrow(
      `clarification message ${bundle.rowIds[2]} has no response for q3`,
    );
    expect(await rowsOfPendingId(t.db, bundle.pendingId)).toEqual(before);
    await expect(claims.completeActiveBundle(bundle.pendingId, Answered, undefined)).rejects.toThrow('has no response for q1');
    expect(await rowsOfPendingId(t.db, bundle.pendingId)).toEqual(before);

    // Still pending and claimable afterwards: nothing was left in `responding`.
    const result = await claims.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2', 'q3'], 'complete'));
    expect(result.claimed).toBe(true);
    expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata.status)).toEqual(['answered', 'answered', 'answered']);
  });

  it.each(['expired', 'cancelled', 'pending', 'responding', ''])('terminal "%s" is refused as a programming error and nothing is written', async (terminal) => {
    const bundle = await seedLiveBundle(t.db);
    const before = await rowsOfPendingId(t.db, bundle.pendingId);
    await expect(async () =>
      claims.completeActiveBundle(bundle.pendingId, terminal as TerminalStatus, answersFor(['q1', 'q2'], 'x')),
    ).rejects.toThrow(`invalid clarification terminal status: ${terminal}`);
    expect(await rowsOfPendingId(t.db, bundle.pendingId)).toEqual(before);
  });

  it('the newest durable turn decides: a newer normal turn supersedes, and still does once its only message is deleted', async () => {
    const bundle = await seedLiveBundle(t.db);
    const turnB = await insertTurn(t.db, { ...bundle, startedAt: at(10) });
    const message = await insertMessage(t.db, { ...bundle, turnId: turnB, content: 'newer prompt', createdAt: at(11) });
    expect(await repo.currentTurnId(bundle.sessionId)).toBe(turnB);
    expect(await consumers(bundle.pendingId, bundle.sessionId)).toEqual({
      isBundleActive: false,
      sessionHasActiveBundle: false,
      listedAsActive: false,
    });
    await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);

    await t.db.query(`DELETE FROM task_session_messages WHERE id = $1`, [message]);
    expect(await repo.currentTurnId(bundle.sessionId)).toBe(turnB);
    expect(await repo.isBundleActive(bundle.pendingId)).toBe(false);
    await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);
  });

  describe('a reserved successor turn', () => {
    it('that was never dispatched and has no message does not supersede: the bundle stays active and claimable', async () => {
      const bundle = await seedLiveBundle(t.db);
      const successor = uid('successor');
      await reserveSuccessor(t.db, bundle.sessionId, bundle.taskId, successor, bundle.pendingId);
      const { rows } = await t.db.query(`SELECT metadata FROM task_session_turns WHERE id = $1`, [successor]);
      expect(rows[0]?.metadata).toEqual({ prompt_dispatch_pending: true, resume_of: bundle.pendingId });

      expect(await repo.currentTurnId(bundle.sessionId)).toBe(bundle.turnId);
      expect(await consumers(bundle.pendingId, bundle.sessionId)).toEqual({
        isBundleActive: true,
        sessionHasActiveBundle: true,
        listedAsActive: true,
      });
      const result = await claims.completeActiveBundle(bundle.pendingId, Rejected, undefined);
      expect(result.claimed).toBe(true);
      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
    });

    it('supersedes once markDispatchAttempted has run', async () => {
      const bundle = await seedLiveBundle(t.db);
      const successor = uid('successor');
      await reserveSuccessor(t.db, bundle.sessionId, bundle.taskId, successor, bundle.pendingId);
      expect(await repo.isBundleActive(bundle.pendingId)).toBe(true);

      await markDispatchAttempted(t.db, successor);

      expect(await repo.currentTurnId(bundle.sessionId)).toBe(successor);
      expect(await consumers(bundle.pendingId, bundle.sessionId)).toEqual({
        isBundleActive: false,
        sessionHasActiveBundle: false,
        listedAsActive: false,
      });
      await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);
    });

    it('supersedes once it has a message, even if never marked attempted', async () => {
      const bundle = await seedLiveBundle(t.db);
      const successor = uid('successor');
      await reserveSuccessor(t.db, bundle.sessionId, bundle.taskId, successor, bundle.pendingId);
      await insertMessage(t.db, { ...bundle, turnId: successor, content: 'agent output', createdAt: new Date() });

      expect(await repo.currentTurnId(bundle.sessionId)).toBe(successor);
      expect(await repo.isBundleActive(bundle.pendingId)).toBe(false);
      await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);
    });
  });

  describe('deterministic tie-break of the current turn', () => {
    /**
     * Two turns with the same started_at, each with a bundle. `late` must be current. Ids are chosen
     * against the expected order (the loser has the greater id when created_at decides) and the
     * insertion order varies, so neither physical order nor id alone can pass the test.
     */
    async function twoTurns(options: { sameCreatedAt: boolean; insertWinnerFirst: boolean }) {
      const session = await insertSession(t.db);
      const prefix = uid('tie');
      const startedAt = at(5);
      const winner = options.sameCreatedAt
        ? { id: `${prefix}-b`, startedAt, createdAt: at(5) }
        : { id: `${prefix}-a`, startedAt, createdAt: at(6) };
      const loser = options.sameCreatedAt
        ? { id: `${prefix}-a`, startedAt, createdAt: at(5) }
        : { id: `${prefix}-b`, startedAt, createdAt: at(5) };
      for (const turn of options.insertWinnerFirst ? [winner, loser] : [loser, winner]) {
        await insertTurn(t.db, { ...session, ...turn });
      }
      const onWinner = await insertBundle(t.db, { ...session, turnId: winner.id, createdAt: at(7) });
      const onLoser = await insertBundle(t.db, { ...session, turnId: loser.id, createdAt: at(7) });
      return { session, winner: winner.id, onWinner, onLoser };
    }

    it.each([
      { sameCreatedAt: false, insertWinnerFirst: true },
      { sameCreatedAt: false, insertWinnerFirst: false },
      { sameCreatedAt: true, insertWinnerFirst: true },
      { sameCreatedAt: true, insertWinnerFirst: false },
    ])('equal started_at (same created_at: $sameCreatedAt, winner inserted first: $insertWinnerFirst)', async (options) => {
      for (let repeat = 0; repeat < 3; repeat += 1) {
        const { session, winner, onWinner, onLoser } = await twoTurns(options);
        const seen = new Set<string | undefined>();
        for (let read = 0; read < 10; read += 1) seen.add(await repo.currentTurnId(session.sessionId));
        expect([...seen]).toEqual([winner]);

        expect(await repo.isBundleActive(onLoser.pendingId)).toBe(false);
        expect(await repo.isBundleActive(onWinner.pendingId)).toBe(true);
        const loserBefore = await rowsOfPendingId(t.db, onLoser.pendingId);
        expect(await claims.completeActiveBundle(onLoser.pendingId, Rejected, undefined)).toEqual({ claimed: false, rows: [] });
        expect(await rowsOfPendingId(t.db, onLoser.pendingId)).toEqual(loserBefore);
        expect((await claims.completeActiveBundle(onWinner.pendingId, Rejected, undefined)).claimed).toBe(true);
      }
    });

    it('completed_at plays no part: a completed newest turn stays current', async () => {
      const bundle = await seedLiveBundle(t.db);
      const older = await insertTurn(t.db, { ...bundle, startedAt: at(-10) });
      await t.db.query(`UPDATE task_session_turns SET completed_at = $2 WHERE id = $1`, [bundle.turnId, at(3)]);
      expect(await repo.currentTurnId(bundle.sessionId)).toBe(bundle.turnId);
      expect(await repo.currentTurnId(bundle.sessionId)).not.toBe(older);
      expect((await claims.completeActiveBundle(bundle.pendingId, Rejected, undefined)).claimed).toBe(true);
    });
  });

  describe('the claim serializes with the session\'s other writers (which lock the task_sessions row)', () => {
    it.each([
      {
        change: 'a newer turn is started',
        apply: (db: Db, bundle: LiveBundle) => insertTurn(db, { ...bundle, startedAt: at(10) }).then(() => undefined),
      },
      { change: 'the session becomes COMPLETED', apply: (db: Db, bundle: LiveBundle) => setSessionState(db, bundle.sessionId, 'COMPLETED') },
    ])('a claim that arrives while a transaction holding the session lock commits "$change" waits for it and loses', async ({ apply }) => {
      const bundle = await seedLiveBundle(t.db);
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      const writer = await t.db.connect();
      try {
        await writer.query('BEGIN');
        // The session lock every lifecycle change takes (SessionRepository.lockById): advisory, then the row.
        await writer.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [bundle.sessionId]);
        await writer.query(`SELECT id FROM task_sessions WHERE id = $1 FOR UPDATE`, [bundle.sessionId]);
        await apply(writer, bundle);
        let finished = false;
        const claim = claims.completeActiveBundle(bundle.pendingId, Rejected, undefined).finally(() => (finished = true));
        await eventually(() => blockedOnLock(t.db), 5000, 'the claim waiting for the session lock');
        expect(finished).toBe(false);
        await writer.query('COMMIT');
        expect(await claim).toEqual({ claimed: false, rows: [] });
      } finally {
        writer.release();
      }
      expect(await rowsOfPendingId(t.db, bundle.pendingId)).toEqual(before);
    });
  });

  describe('isBundleActive, sessionHasActiveBundle and the pending list agree with the claim (one shared rule)', () => {
    interface Case {
      name: string;
      seed: () => Promise<{ pendingId: string; sessionId: string }>;
      claimable: boolean;
    }
    const live = (questions: number | QuestionSpec[] = 2) => async () => seedLiveBundle(t.db, { questions });
    const cases: Case[] = [
      { name: 'a plain pending bundle', seed: live(), claimable: true },
      { name: 'a detached bundle', seed: live([{ extra: { agent_disconnected: true } }]), claimable: true },
      { name: 'a status-less legacy bundle', seed: live([{ status: null }, { status: null }]), claimable: true },
      {
        name: 'a mixed legacy bundle',
        seed: live([{ status: 'answered', extra: { response: answer('q1', 'legacy') } }, {}, { status: 'weird' }]),
        claimable: true,
      },
      {
        name: 'a bundle with no pending row',
        seed: live([{ status: 'answered', extra: { response: answer('q1', 'legacy') } }, { status: 'weird' }, { status: 'expired' }]),
        claimable: false,
      },
      ...['COMPLETED', 'FAILED', 'CANCELLED'].map((state) => ({
        name: `a bundle of a ${state} session`,
        seed: async () => seedLiveBundle(t.db, { state }),
        claimable: false,
      })),
      {
        name: 'a superseded bundle',
        seed: async () => {
          const bundle = await seedLiveBundle(t.db);
          await insertTurn(t.db, { ...bundle, startedAt: at(10) });
          return bundle;
        },
        claimable: false,
      },
      {
        name: 'a bundle whose newer turn lost its only message',
        seed: async () => {
          const bundle = await seedLiveBundle(t.db);
          const turnB = await insertTurn(t.db, { ...bundle, startedAt: at(10) });
          const message = await insertMessage(t.db, { ...bundle, turnId: turnB, createdAt: at(11) });
          await t.db.query(`DELETE FROM task_session_messages WHERE id = $1`, [message]);
          return bundle;
        },
        claimable: false,
      },
      {
        name: 'a bundle behind an unpublished reserved successor',
        seed: async () => {
          const bundle = await seedLiveBundle(t.db);
          await reserveSuccessor(t.db, bundle.sessionId, bundle.taskId, uid('successor'), bundle.pendingId);
          return bundle;
        },
        claimable: true,
      },
      {
        name: 'a bundle behind an attempted successor',
        seed: async () => {
          const bundle = await seedLiveBundle(t.db);
          const successor = uid('successor');
          await reserveSuccessor(t.db, bundle.sessionId, bundle.taskId, successor, bundle.pendingId);
          await markDispatchAttempted(t.db, successor);
          return bundle;
        },
        claimable: false,
      },
      {
        name: 'a bundle behind a reserved successor with a message',
        seed: async () => {
          const bundle = await seedLiveBundle(t.db);
          const successor = uid('successor');
          await reserveSuccessor(t.db, bundle.sessionId, bundle.taskId, successor, bundle.pendingId);
          await insertMessage(t.db, { ...bundle, turnId: successor, createdAt: new Date() });
          return bundle;
        },
        claimable: false,
      },
      ...[true, false].map((winner) => ({
        name: `a bundle on the ${winner ? 'winning' : 'losing'} turn of an equal-started_at tie`,
        seed: async () => {
          const session = await insertSession(t.db);
          const prefix = uid('tie');
          await insertTurn(t.db, { ...session, id: `${prefix}-b`, startedAt: at(5), createdAt: at(5) });
          await insertTurn(t.db, { ...session, id: `${prefix}-a`, startedAt: at(5), createdAt: at(6) });
          const bundle = await insertBundle(t.db, { ...session, turnId: winner ? `${prefix}-a` : `${prefix}-b`, createdAt: at(7) });
          return { ...session, ...bundle };
        },
        claimable: winner,
      })),
    ];

    it.each(cases)('$name (claimable: $claimable)', async ({ seed, claimable }) => {
      const { pendingId, sessionId } = await seed();
      expect(await consumers(pendingId, sessionId)).toEqual({
        isBundleActive: claimable,
        sessionHasActiveBundle: claimable,
        listedAsActive: claimable,
      });
      const result = await claims.completeActiveBundle(pendingId, Rejected, undefined);
      expect(result.claimed).toBe(claimable);
      // Once claimed, no consumer sees it as pending any more.
      expect(await consumers(pendingId, sessionId)).toEqual({ isBundleActive: false, sessionHasActiveBundle: false, listedAsActive: false });
    });

    it('a malformed bundle is neither active nor claimable: one membership test (spec D4, R2 lists malformed as not active)', async () => {
      const bundle = await seedLiveBundle(t.db);
      const stray = await insertMessage(t.db, {
        ...bundle,
        type: 'message',
        metadata: { pending_id: bundle.pendingId },
        createdAt: at(2),
      });
      expect(await consumers(bundle.pendingId, bundle.sessionId)).toEqual({
        isBundleActive: false,
        sessionHasActiveBundle: false,
        listedAsActive: false,
      });
      await expectNotClaimable(bundle.pendingId, [bundle.sessionId]);
      // Remove the stray row and the same bundle becomes active and claimable: well-formedness alone blocked it.
      await t.db.query(`DELETE FROM task_session_messages WHERE id = $1`, [stray]);
      expect(await consumers(bundle.pendingId, bundle.sessionId)).toEqual({
        isBundleActive: true,
        sessionHasActiveBundle: true,
        listedAsActive: true,
      });
      expect((await claims.completeActiveBundle(bundle.pendingId, Rejected, undefined)).claimed).toBe(true);
      expect((await rowsById(t.db, bundle.rowIds)).map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
    });
  });
});
