import { BundleLifecycleRepository, BundleRepository, ClarificationStatus, DeliverySweeper } from '#clarification/testing';
import { startApp, type TestApp } from '../../support/app.js';
import { claimer, holdTestOwnerLease, inAppTransaction, QUIET_LEASE, TEST_OWNER, TEST_WINNER } from '../../support/claim.js';
import {
  at,
  type Db,
  insertBundle,
  insertMessage,
  insertSession,
  insertTurn,
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

/**
 * The lifecycle rules, "Lifecycle transitions" and the rollback / recovery of "Delivery after a
 * winning claim": what each transition writes, row by row. A rolled-back claim's rows are pending
 * again, without response or delivery marker — answerable while still current, otherwise not active
 * (an undelivered answer never stays behind as a winner).
 */

const { Answered, Rejected } = ClarificationStatus;

function statuses(rows: readonly StoredRow[]): unknown[] {
  return rows.map((row) => row.metadata.status);
}

/** The rows of `after` not in `changed`, which must equal their `before` version byte for byte. */
function untouched(before: readonly StoredRow[], after: readonly StoredRow[], changed: readonly string[]) {
  return {
    before: before.filter((row) => !changed.includes(row.id)),
    after: after.filter((row) => !changed.includes(row.id)),
  };
}

/** A claim seeded as if the process died after the claim committed and before delivery was confirmed. */
function undeliveredClaim(terminal: 'answered' | 'rejected', count = 2): QuestionSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    status: terminal,
    extra: {
      response_delivery_pending: true,
      ...(terminal === 'answered' ? { response: answer(`q${index + 1}`, 'before the crash') } : {}),
    },
  }));
}

/** What a rollback (and the recovery of an orphaned claim) turns a claimed row back into. */
function restoredMetadata(row: StoredRow): Record<string, unknown> {
  const { response: _response, response_delivery_pending: _pending, delivery_owner: _owner, ...rest } = row.metadata;
  return { ...rest, status: 'pending' };
}

describe('clarification rows through restore, detach, expire and start-up reconciliation', () => {
  let t: TestApp;
  let repo: BundleRepository;
  let lifecycle: BundleLifecycleRepository;
  let claims: ReturnType<typeof claimer>;

  beforeAll(async () => {
    t = await startApp({ config: QUIET_LEASE });
    await holdTestOwnerLease(t);
    repo = t.app.get(BundleRepository);
    lifecycle = t.app.get(BundleLifecycleRepository);
    claims = claimer(t);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('rollback (a failed delivery or resume rolls the claim back)', () => {
    it('puts the claimed rows back to pending without response or delivery flag, and a retry claim succeeds', async () => {
      const bundle = await seedLiveBundle(t.db);
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      expect((await claims.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2'], 'first'))).claimed).toBe(true);
      expect(statuses(await rowsOfPendingId(t.db, bundle.pendingId))).toEqual(['answered', 'answered']);

      expect(await claims.rollBack(bundle.pendingId)).toEqual({ rolledBack: true, active: true });

      const restored = await rowsOfPendingId(t.db, bundle.pendingId);
      expect(restored.map((row) => row.metadata)).toEqual(before.map((row) => row.metadata));
      expect(await repo.isBundleActive(bundle.pendingId)).toBe(true);
      const retry = await claims.completeActiveBundle(bundle.pendingId, Rejected, undefined);
      expect(retry.claimed).toBe(true);
      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata)).toEqual(
        before.map((row) => ({
          ...row.metadata,
          status: 'rejected',
          response_delivery_pending: true,
          delivery_owner: TEST_OWNER,
          resolved_by: { ...TEST_WINNER, name: null, at: expect.any(String) },
          receipt: 'test-receipt',
        })),
      );
    });

    it('restores only what the claim wrote: a legacy answered row of a mixed bundle stays answered', async () => {
      const bundle = await seedLiveBundle(t.db, { questions: [{ status: 'answered', extra: { response: answer('q1', 'legacy') } }, {}] });
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      expect((await claims.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q2'], 'new'))).claimed).toBe(true);

      expect(await claims.rollBack(bundle.pendingId)).toEqual({ rolledBack: true, active: true });

      const after = await rowsOfPendingId(t.db, bundle.pendingId);
      expect(after[0]).toEqual(before[0]);
      expect(after[1].metadata).toEqual(before[1].metadata);
    });

    it('does nothing to a bundle that was never claimed, nor to a claim whose delivery was confirmed', async () => {
      const unclaimed = await seedLiveBundle(t.db);
      const unclaimedBefore = await rowsOfPendingId(t.db, unclaimed.pendingId);
      expect(await claims.rollBack(unclaimed.pendingId)).toEqual({ rolledBack: false, active: false });
      expect(await rowsOfPendingId(t.db, unclaimed.pendingId)).toEqual(unclaimedBefore);

      const delivered = await seedLiveBundle(t.db);
      expect((await claims.completeActiveBundle(delivered.pendingId, Answered, answersFor(['q1', 'q2'], 'done'))).claimed).toBe(true);
      expect(await claims.finalize(delivered.pendingId)).toBe(true);
      const deliveredBefore = await rowsOfPendingId(t.db, delivered.pendingId);
      expect(deliveredBefore.map((row) => row.metadata.response_delivery_pending)).toEqual([undefined, undefined]);
      expect(await claims.rollBack(delivered.pendingId)).toEqual({ rolledBack: false, active: false });
      expect(await rowsOfPendingId(t.db, delivered.pendingId)).toEqual(deliveredBefore);
    });

    it('a resume claim makes its successor turn current at once (attempted); rolling back drops it and restores; the retry claim succeeds', async () => {
      const bundle = await seedLiveBundle(t.db);
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      const successor = uid('successor');
      const plan = { kind: 'resume' as const, owner: TEST_OWNER, successor: { turnId: successor }, webhook: 'http://127.0.0.1:9/resume' };
      expect((await claims.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2'], 'resume me'), plan)).claimed).toBe(true);
      const { rows: turnRows } = await t.db.query(`SELECT metadata FROM task_session_turns WHERE id = $1`, [successor]);
      expect(turnRows[0]?.metadata).toEqual({ prompt_dispatch_pending: true, prompt_dispatch_attempted: true, resume_of: bundle.pendingId });
      expect(await repo.currentTurnId(bundle.sessionId)).toBe(successor);

      expect(await claims.rollBack(bundle.pendingId)).toEqual({ rolledBack: true, active: true });

      const turns = await t.db.query(`SELECT id FROM task_session_turns WHERE task_session_id = $1`, [bundle.sessionId]);
      expect(turns.rows.map((row: { id: string }) => row.id)).toEqual([bundle.turnId]);
      expect(await repo.currentTurnId(bundle.sessionId)).toBe(bundle.turnId);
      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata)).toEqual(before.map((row) => row.metadata));

      const retry = await claims.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2'], 'retry'));
      expect(retry.claimed).toBe(true);
      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata.response)).toEqual([
        answer('q1', 'retry'),
        answer('q2', 'retry'),
      ]);
    });

    it('never reactivates a superseded turn: a newer turn started after the claim ⇒ rows pending again without their answer, not active', async () => {
      const bundle = await seedLiveBundle(t.db);
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      expect((await claims.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2'], 'claimed'))).claimed).toBe(true);
      await insertTurn(t.db, { ...bundle, startedAt: at(10) });

      expect(await claims.rollBack(bundle.pendingId)).toEqual({ rolledBack: true, active: false });

      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata)).toEqual(before.map((row) => row.metadata));
      expect(await repo.isBundleActive(bundle.pendingId)).toBe(false);
      expect(await claims.completeActiveBundle(bundle.pendingId, Rejected, undefined)).toEqual({ claimed: false, rows: [] });
    });

    it('never reactivates the bundle of a session that has since become terminal', async () => {
      const bundle = await seedLiveBundle(t.db);
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      expect((await claims.completeActiveBundle(bundle.pendingId, Rejected, undefined)).claimed).toBe(true);
      await setSessionState(t.db, bundle.sessionId, 'FAILED');
      expect(await claims.rollBack(bundle.pendingId)).toEqual({ rolledBack: true, active: false });
      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata)).toEqual(before.map((row) => row.metadata));
      expect(await repo.isBundleActive(bundle.pendingId)).toBe(false);
    });
  });

  /**
   * A session with an older turn A (one pending bundle) and a current turn B holding: a mixed bundle
   * (pending, answered, status-less), a second pending bundle, an already-detached bundle and a
   * plain message whose metadata says "pending".
   */
  async function seedTwoTurnSession(db: Db) {
    const session = await insertSession(db);
    const turnA = await insertTurn(db, { ...session, startedAt: at(0) });
    const turnB = await insertTurn(db, { ...session, startedAt: at(10) });
    const old = await insertBundle(db, { ...session, turnId: turnA, createdAt: at(1) });
    const mixed = await insertBundle(db, {
      ...session,
      turnId: turnB,
      createdAt: at(11),
      questions: [{}, { status: 'answered', extra: { response: answer('q2', 'legacy') } }, { status: null }],
    });
    const second = await insertBundle(db, { ...session, turnId: turnB, createdAt: at(12), questions: 1 });
    const detached = await insertBundle(db, {
      ...session,
      turnId: turnB,
      createdAt: at(13),
      questions: [{ extra: { agent_disconnected: true } }],
    });
    const plain = await insertMessage(db, { ...session, turnId: turnB, metadata: { status: 'pending' }, createdAt: at(14) });
    return { ...session, turnA, turnB, old, mixed, second, detached, plain };
  }

  describe('detach', () => {
    it('marks only the current turn’s pending rows agent_disconnected, is idempotent, and the bundle stays claimable', async () => {
      const s = await seedTwoTurnSession(t.db);
      const before = await rowsOfSession(t.db, s.sessionId);
      const expectedIds = [s.mixed.rowIds[0], s.mixed.rowIds[2], s.second.rowIds[0]];

      const detached = await inAppTransaction(t, (manager) => lifecycle.detachSession(s.sessionId, manager));

      expect(detached.flatMap((bundle) => bundle.message_ids).sort()).toEqual([...expectedIds].sort());
      const after = await rowsOfSession(t.db, s.sessionId);
      const changed = await rowsById(t.db, expectedIds);
      const original = expectedIds.map((id) => before.find((row) => row.id === id)!);
      expect(changed.map((row) => row.metadata)).toEqual(original.map((row) => ({ ...row.metadata, agent_disconnected: true })));
      const rest = untouched(before, after, expectedIds);
      expect(rest.after).toEqual(rest.before);

      // Repeating it writes nothing: no row changed, no updated_at moved (its waiters are still told).
      const again = await inAppTransaction(t, (manager) => lifecycle.detachSession(s.sessionId, manager));
      expect(again.flatMap((bundle) => bundle.message_ids)).toEqual([]);
      expect(await rowsOfSession(t.db, s.sessionId)).toEqual(after);

      // Still active and answerable.
      expect(await repo.isBundleActive(s.mixed.pendingId)).toBe(true);
      const claim = await claims.completeActiveBundle(s.mixed.pendingId, Answered, answersFor(['q1', 'q3'], 'after detach'));
      expect(claim.claimed).toBe(true);
      expect(statuses(await rowsOfPendingId(t.db, s.mixed.pendingId))).toEqual(['answered', 'answered', 'answered']);
      expect((await rowsOfPendingId(t.db, s.mixed.pendingId))[1]).toEqual(before.find((row) => row.id === s.mixed.rowIds[1]));
    });
  });

  describe('expire', () => {
    it('expires only the current turn’s pending rows, is idempotent, and the bundle is no longer claimable', async () => {
      const s = await seedTwoTurnSession(t.db);
      const before = await rowsOfSession(t.db, s.sessionId);
      const expectedIds = [s.mixed.rowIds[0], s.mixed.rowIds[2], s.second.rowIds[0], s.detached.rowIds[0]];

      const expired = await inAppTransaction(t, (manager) => lifecycle.expireSession(s.sessionId, manager));

      expect(expired.flatMap((bundle) => bundle.message_ids).sort()).toEqual([...expectedIds].sort());
      const after = await rowsOfSession(t.db, s.sessionId);
      const changed = await rowsById(t.db, expectedIds);
      const original = expectedIds.map((id) => before.find((row) => row.id === id)!);
      expect(changed.map((row) => row.metadata)).toEqual(original.map((row) => ({ ...row.metadata, status: 'expired' })));
      const rest = untouched(before, after, expectedIds);
      expect(rest.after).toEqual(rest.before);

      expect(await inAppTransaction(t, (manager) => lifecycle.expireSession(s.sessionId, manager))).toEqual([]);
      expect(await rowsOfSession(t.db, s.sessionId)).toEqual(after);

      for (const pendingId of [s.mixed.pendingId, s.second.pendingId, s.detached.pendingId]) {
        expect(await repo.isBundleActive(pendingId)).toBe(false);
        expect(await claims.completeActiveBundle(pendingId, Rejected, undefined)).toEqual({ claimed: false, rows: [] });
      }
      expect(await repo.sessionHasActiveBundle(s.sessionId)).toBe(false);
      expect(await rowsOfSession(t.db, s.sessionId)).toEqual(after);
    });

    it('expires the current pending rows of a session that already reached its terminal state', async () => {
      const bundle = await seedLiveBundle(t.db, { state: 'COMPLETED' });
      const expired = await inAppTransaction(t, (manager) => lifecycle.expireSession(bundle.sessionId, manager));
      expect(expired.flatMap((touched) => touched.message_ids).sort()).toEqual([...bundle.rowIds].sort());
      expect(statuses(await rowsOfPendingId(t.db, bundle.pendingId))).toEqual(['expired', 'expired']);
    });
  });

  describe('recovery of claims whose delivery nobody carries out', () => {
    it('at start-up, an orphaned claim (no owner recorded, or a dead one) is rolled back — answerable when still current — and delivered ones are left alone', async () => {
      const current = await seedLiveBundle(t.db, { questions: undeliveredClaim('answered') });
      const currentRejected = await seedLiveBundle(t.db, { questions: undeliveredClaim('rejected', 1) });
      const deadOwner = await seedLiveBundle(t.db, {
        questions: undeliveredClaim('answered').map((spec) => ({ ...spec, extra: { ...spec.extra, delivery_owner: 'a-process-long-gone' } })),
      });
      const superseded = await seedLiveBundle(t.db, { questions: undeliveredClaim('answered') });
      await insertTurn(t.db, { ...superseded, startedAt: at(10) });
      const ended = await seedLiveBundle(t.db, { state: 'COMPLETED', questions: undeliveredClaim('rejected') });
      const delivered = await seedLiveBundle(t.db, {
        questions: [{ status: 'answered', extra: { response: answer('q1', 'delivered') } }],
      });
      const mixed = await seedLiveBundle(t.db, {
        questions: [{ status: 'answered', extra: { response: answer('q1', 'legacy') } }, ...undeliveredClaim('rejected', 1)],
      });
      const before = new Map<string, StoredRow[]>();
      for (const bundle of [current, currentRejected, deadOwner, superseded, ended, delivered, mixed]) {
        before.set(bundle.pendingId, await rowsOfPendingId(t.db, bundle.pendingId));
      }
      const metadataOf = async (pendingId: string) => (await rowsOfPendingId(t.db, pendingId)).map((row) => row.metadata);

      const second = await startApp({ databaseUrl: t.databaseUrl, config: QUIET_LEASE });
      try {
        for (const bundle of [current, currentRejected, deadOwner, superseded, ended]) {
          expect(await metadataOf(bundle.pendingId)).toEqual(before.get(bundle.pendingId)!.map(restoredMetadata));
        }
        expect(await rowsOfPendingId(t.db, delivered.pendingId)).toEqual(before.get(delivered.pendingId));
        const mixedBefore = before.get(mixed.pendingId)!;
        const mixedAfter = await rowsOfPendingId(t.db, mixed.pendingId);
        expect(mixedAfter[0]).toEqual(mixedBefore[0]);
        expect(mixedAfter[1].metadata).toEqual(restoredMetadata(mixedBefore[1]));

        const secondRepo = second.app.get(BundleRepository);
        expect(await secondRepo.isBundleActive(current.pendingId)).toBe(true);
        expect(await secondRepo.isBundleActive(deadOwner.pendingId)).toBe(true);
        expect(await secondRepo.isBundleActive(superseded.pendingId)).toBe(false);
        expect(await secondRepo.isBundleActive(ended.pendingId)).toBe(false);
        const secondClaims = claimer(second);
        expect((await secondClaims.completeActiveBundle(current.pendingId, Answered, answersFor(['q1', 'q2'], 'after restart'))).claimed).toBe(true);
        expect(await secondClaims.completeActiveBundle(superseded.pendingId, Rejected, undefined)).toEqual({ claimed: false, rows: [] });
      } finally {
        await second.close();
      }
    });

    it('a recovery that fails leaves the claim as it was and does not stop start-up; a later sweep recovers it', async () => {
      const first = await startApp({ config: QUIET_LEASE });
      let seeded: { pendingId: string; rowIds: string[] } | undefined;
      try {
        seeded = await seedLiveBundle(first.db, { pendingId: uid('b'), questions: undeliveredClaim('answered') });
        // A constraint of this test database only: the bundle's first row may not become pending again.
        await first.db.query(
          `ALTER TABLE task_session_messages ADD CONSTRAINT test_refuses_restore
             CHECK (id <> '${seeded.rowIds[0]}' OR metadata->>'status' IS DISTINCT FROM 'pending')`,
        );
      } finally {
        await first.close();
      }
      const bundle = seeded;
      const recovering = await startApp({ databaseUrl: first.databaseUrl, config: QUIET_LEASE });
      try {
        const before = await rowsOfPendingId(recovering.db, bundle.pendingId);
        expect(statuses(before)).toEqual(['answered', 'answered']);
        expect(before.map((row) => row.metadata.response_delivery_pending)).toEqual([true, true]);

        await recovering.db.query(`ALTER TABLE task_session_messages DROP CONSTRAINT test_refuses_restore`);
        await recovering.app.get(DeliverySweeper).sweep();
        expect((await rowsOfPendingId(recovering.db, bundle.pendingId)).map((row) => row.metadata)).toEqual(before.map(restoredMetadata));
      } finally {
        await recovering.close();
      }
    });
  });
});
