import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../apps/server/src/create-app.js';
import { BundleRepository, ClarificationStatus } from '../libs/clarification/src/index.js';
import { loadConfig } from '../libs/config/src/index.js';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from './support/app.js';
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
} from './support/bundles.js';
import { openPool } from './support/database.js';

/**
 * baseline-semantics.md, "Lifecycle transitions" and the restore / start-up reconciliation of
 * "Delivery after a winning claim": what each transition writes, row by row.
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

/** What restore (and the reconciliation) turns a claimed row back into. */
function restoredMetadata(row: StoredRow): Record<string, unknown> {
  const { response: _response, response_delivery_pending: _pending, ...rest } = row.metadata;
  return { ...rest, status: 'pending' };
}

function unmarkedMetadata(row: StoredRow): Record<string, unknown> {
  const { response_delivery_pending: _pending, ...rest } = row.metadata;
  return rest;
}

describe('clarification rows through restore, detach, expire and start-up reconciliation', () => {
  let t: TestApp;
  let repo: BundleRepository;

  beforeAll(async () => {
    t = await startApp();
    repo = t.app.get(BundleRepository);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('restore (a failed resume rolls the claim back)', () => {
    it('puts the claimed rows back to pending without response or delivery flag, and a retry claim succeeds', async () => {
      const bundle = await seedLiveBundle(t.db);
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      expect((await repo.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2'], 'first'))).claimed).toBe(true);
      expect(statuses(await rowsOfPendingId(t.db, bundle.pendingId))).toEqual(['answered', 'answered']);

      expect(await repo.restoreActiveBundle(bundle.pendingId)).toBe(2);

      const restored = await rowsOfPendingId(t.db, bundle.pendingId);
      expect(restored.map((row) => row.metadata)).toEqual(before.map((row) => row.metadata));
      expect(await repo.isBundleActive(bundle.pendingId)).toBe(true);
      const retry = await repo.completeActiveBundle(bundle.pendingId, Rejected, undefined);
      expect(retry.claimed).toBe(true);
      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata)).toEqual(
        before.map((row) => ({ ...row.metadata, status: 'rejected', response_delivery_pending: true })),
      );
    });

    it('restores only what the claim wrote: a legacy answered row of a mixed bundle stays answered', async () => {
      const bundle = await seedLiveBundle(t.db, { questions: [{ status: 'answered', extra: { response: answer('q1', 'legacy') } }, {}] });
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      expect((await repo.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q2'], 'new'))).claimed).toBe(true);

      expect(await repo.restoreActiveBundle(bundle.pendingId)).toBe(1);

      const after = await rowsOfPendingId(t.db, bundle.pendingId);
      expect(after[0]).toEqual(before[0]);
      expect(after[1]!.metadata).toEqual(before[1]!.metadata);
    });

    it('does nothing to a bundle that was never claimed, nor to a claim whose delivery was confirmed', async () => {
      const unclaimed = await seedLiveBundle(t.db);
      const unclaimedBefore = await rowsOfPendingId(t.db, unclaimed.pendingId);
      expect(await repo.restoreActiveBundle(unclaimed.pendingId)).toBe(0);
      expect(await rowsOfPendingId(t.db, unclaimed.pendingId)).toEqual(unclaimedBefore);

      const delivered = await seedLiveBundle(t.db);
      expect((await repo.completeActiveBundle(delivered.pendingId, Answered, answersFor(['q1', 'q2'], 'done'))).claimed).toBe(true);
      expect(await repo.finalizeDelivery(delivered.pendingId)).toBe(2);
      const deliveredBefore = await rowsOfPendingId(t.db, delivered.pendingId);
      expect(deliveredBefore.map((row) => row.metadata.response_delivery_pending)).toEqual([undefined, undefined]);
      expect(await repo.restoreActiveBundle(delivered.pendingId)).toBe(0);
      expect(await rowsOfPendingId(t.db, delivered.pendingId)).toEqual(deliveredBefore);
    });

    it.each([
      { queued: false, name: 'a webhook hand-off' },
      { queued: true, name: 'a queued resume prompt' },
    ])('abandonResume after reserve + markDispatchAttempted ($name) deletes the successor turn and restores; the retry claim succeeds', async ({ queued }) => {
      const bundle = await seedLiveBundle(t.db);
      const before = await rowsOfPendingId(t.db, bundle.pendingId);
      const response = answersFor(['q1', 'q2'], 'resume me');
      expect((await repo.completeActiveBundle(bundle.pendingId, Answered, response)).claimed).toBe(true);

      const successor = uid('successor');
      const promptId = uid('prompt');
      await repo.reserveSuccessorTurn(bundle.sessionId, bundle.taskId, successor, bundle.pendingId);
      await repo.markDispatchAttempted(
        bundle.sessionId,
        successor,
        queued
          ? { messageId: promptId, taskId: bundle.taskId, content: 'resume', metadata: { pending_id: bundle.pendingId, response: [...response.values()] } }
          : undefined,
      );
      expect(await repo.currentTurnId(bundle.sessionId)).toBe(successor);

      expect(await repo.abandonResume(bundle.pendingId, bundle.sessionId, successor)).toBe(2);

      const turns = await t.db.query(`SELECT id FROM task_session_turns WHERE task_session_id = $1`, [bundle.sessionId]);
      expect(turns.rows.map((row: { id: string }) => row.id)).toEqual([bundle.turnId]);
      expect((await t.db.query(`SELECT 1 FROM task_session_messages WHERE id = $1`, [promptId])).rowCount).toBe(0);
      expect(await repo.currentTurnId(bundle.sessionId)).toBe(bundle.turnId);
      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata)).toEqual(before.map((row) => row.metadata));

      const retry = await repo.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2'], 'retry'));
      expect(retry.claimed).toBe(true);
      expect((await rowsOfPendingId(t.db, bundle.pendingId)).map((row) => row.metadata.response)).toEqual([
        answer('q1', 'retry'),
        answer('q2', 'retry'),
      ]);
    });

    it('never reactivates a superseded turn: a newer turn started after the claim ⇒ 0 rows, still answered', async () => {
      const bundle = await seedLiveBundle(t.db);
      expect((await repo.completeActiveBundle(bundle.pendingId, Answered, answersFor(['q1', 'q2'], 'claimed'))).claimed).toBe(true);
      await insertTurn(t.db, { ...bundle, startedAt: at(10) });
      const claimed = await rowsOfPendingId(t.db, bundle.pendingId);

      expect(await repo.restoreActiveBundle(bundle.pendingId)).toBe(0);

      expect(await rowsOfPendingId(t.db, bundle.pendingId)).toEqual(claimed);
      expect(statuses(claimed)).toEqual(['answered', 'answered']);
      expect(claimed.map((row) => row.metadata.response_delivery_pending)).toEqual([true, true]);
      expect(await repo.isBundleActive(bundle.pendingId)).toBe(false);
    });

    it('never reactivates the bundle of a session that has since become terminal', async () => {
      const bundle = await seedLiveBundle(t.db);
      expect((await repo.completeActiveBundle(bundle.pendingId, Rejected, undefined)).claimed).toBe(true);
      await setSessionState(t.db, bundle.sessionId, 'FAILED');
      const claimed = await rowsOfPendingId(t.db, bundle.pendingId);
      expect(await repo.restoreActiveBundle(bundle.pendingId)).toBe(0);
      expect(await rowsOfPendingId(t.db, bundle.pendingId)).toEqual(claimed);
      expect(statuses(claimed)).toEqual(['rejected', 'rejected']);
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
      const expectedIds = [s.mixed.rowIds[0]!, s.mixed.rowIds[2]!, s.second.rowIds[0]!];

      const detached = await repo.detachSession(s.sessionId);

      expect(detached.map((row) => row.id).sort()).toEqual([...expectedIds].sort());
      const after = await rowsOfSession(t.db, s.sessionId);
      const changed = await rowsById(t.db, expectedIds);
      const original = expectedIds.map((id) => before.find((row) => row.id === id)!);
      expect(changed.map((row) => row.metadata)).toEqual(original.map((row) => ({ ...row.metadata, agent_disconnected: true })));
      const rest = untouched(before, after, expectedIds);
      expect(rest.after).toEqual(rest.before);

      // Repeating it writes nothing: no row returned, no updated_at moved.
      expect(await repo.detachSession(s.sessionId)).toEqual([]);
      expect(await rowsOfSession(t.db, s.sessionId)).toEqual(after);

      // Still active and answerable.
      expect(await repo.isBundleActive(s.mixed.pendingId)).toBe(true);
      const claim = await repo.completeActiveBundle(s.mixed.pendingId, Answered, answersFor(['q1', 'q3'], 'after detach'));
      expect(claim.claimed).toBe(true);
      expect(statuses(await rowsOfPendingId(t.db, s.mixed.pendingId))).toEqual(['answered', 'answered', 'answered']);
      expect((await rowsOfPendingId(t.db, s.mixed.pendingId))[1]).toEqual(before.find((row) => row.id === s.mixed.rowIds[1]));
    });
  });

  describe('expire', () => {
    it('expires only the current turn’s pending rows, is idempotent, and the bundle is no longer claimable', async () => {
      const s = await seedTwoTurnSession(t.db);
      const before = await rowsOfSession(t.db, s.sessionId);
      const expectedIds = [s.mixed.rowIds[0]!, s.mixed.rowIds[2]!, s.second.rowIds[0]!, s.detached.rowIds[0]!];

      const expired = await repo.expireSession(s.sessionId);

      expect(expired.map((row) => row.id).sort()).toEqual([...expectedIds].sort());
      const after = await rowsOfSession(t.db, s.sessionId);
      const changed = await rowsById(t.db, expectedIds);
      const original = expectedIds.map((id) => before.find((row) => row.id === id)!);
      expect(changed.map((row) => row.metadata)).toEqual(original.map((row) => ({ ...row.metadata, status: 'expired' })));
      const rest = untouched(before, after, expectedIds);
      expect(rest.after).toEqual(rest.before);

      expect(await repo.expireSession(s.sessionId)).toEqual([]);
      expect(await rowsOfSession(t.db, s.sessionId)).toEqual(after);

      for (const pendingId of [s.mixed.pendingId, s.second.pendingId, s.detached.pendingId]) {
        expect(await repo.isBundleActive(pendingId)).toBe(false);
        expect(await repo.completeActiveBundle(pendingId, Rejected, undefined)).toEqual({ claimed: false, rows: [] });
      }
      expect(await repo.sessionHasActiveBundle(s.sessionId)).toBe(false);
      expect(await rowsOfSession(t.db, s.sessionId)).toEqual(after);
    });

    it('expires the current pending rows of a session that already reached its terminal state', async () => {
      const bundle = await seedLiveBundle(t.db, { state: 'COMPLETED' });
      const expired = await repo.expireSession(bundle.sessionId);
      expect(expired.map((row) => row.id).sort()).toEqual([...bundle.rowIds].sort());
      expect(statuses(await rowsOfPendingId(t.db, bundle.pendingId))).toEqual(['expired', 'expired']);
    });
  });

  describe('start-up reconciliation of undelivered claims', () => {
    it('restores a still-current undelivered claim, only unmarks a superseded or ended one, leaves delivered ones alone', async () => {
      const current = await seedLiveBundle(t.db, { questions: undeliveredClaim('answered') });
      const currentRejected = await seedLiveBundle(t.db, { questions: undeliveredClaim('rejected', 1) });
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
      for (const bundle of [current, currentRejected, superseded, ended, delivered, mixed]) {
        before.set(bundle.pendingId, await rowsOfPendingId(t.db, bundle.pendingId));
      }
      const metadataOf = async (pendingId: string) => (await rowsOfPendingId(t.db, pendingId)).map((row) => row.metadata);

      const second = await startApp({ databaseUrl: t.databaseUrl });
      try {
        expect(await metadataOf(current.pendingId)).toEqual(before.get(current.pendingId)!.map(restoredMetadata));
        expect(await metadataOf(currentRejected.pendingId)).toEqual(before.get(currentRejected.pendingId)!.map(restoredMetadata));
        expect(await metadataOf(superseded.pendingId)).toEqual(before.get(superseded.pendingId)!.map(unmarkedMetadata));
        expect(await metadataOf(ended.pendingId)).toEqual(before.get(ended.pendingId)!.map(unmarkedMetadata));
        expect(await rowsOfPendingId(t.db, delivered.pendingId)).toEqual(before.get(delivered.pendingId));
        const mixedBefore = before.get(mixed.pendingId)!;
        const mixedAfter = await rowsOfPendingId(t.db, mixed.pendingId);
        expect(mixedAfter[0]).toEqual(mixedBefore[0]);
        expect(mixedAfter[1]!.metadata).toEqual(restoredMetadata(mixedBefore[1]!));

        const secondRepo = second.app.get(BundleRepository);
        expect(await secondRepo.isBundleActive(current.pendingId)).toBe(true);
        const claim = await secondRepo.completeActiveBundle(current.pendingId, Answered, answersFor(['q1', 'q2'], 'after restart'));
        expect(claim.claimed).toBe(true);
        expect(await secondRepo.completeActiveBundle(superseded.pendingId, Rejected, undefined)).toEqual({ claimed: false, rows: [] });
        expect(statuses(await rowsOfPendingId(t.db, superseded.pendingId))).toEqual(['answered', 'answered']);
      } finally {
        await second.close();
      }
    });

    it('a failing reconciliation fails start-up and rolls back every restore it had made', async () => {
      const first = await startApp();
      const seeded: Array<{ pendingId: string; rowIds: string[] }> = [];
      let before: StoredRow[][];
      try {
        // Reconciliation walks pending ids in order: `a-…` is restored before `b-…` fails.
        seeded.push(await seedLiveBundle(first.db, { pendingId: uid('a'), questions: undeliveredClaim('answered') }));
        seeded.push(await seedLiveBundle(first.db, { pendingId: uid('b'), questions: undeliveredClaim('answered') }));
        before = await Promise.all(seeded.map((bundle) => rowsOfPendingId(first.db, bundle.pendingId)));
        // A constraint of this test database only: the second bundle's first row may not become pending again.
        await first.db.query(
          `ALTER TABLE task_session_messages ADD CONSTRAINT test_refuses_restore
             CHECK (id <> '${seeded[1]!.rowIds[0]!}' OR metadata->>'status' IS DISTINCT FROM 'pending')`,
        );
      } finally {
        await first.close();
      }

      const config = {
        ...loadConfig({}),
        dataDir: await mkdtemp(path.join(tmpdir(), 'parley-app-')),
        port: 0,
        logLevel: 'silent' as const,
        adminToken: TEST_ADMIN_TOKEN,
        databaseUrl: first.databaseUrl,
      };
      const failing = await createApp(config);
      try {
        await expect(failing.listen({ port: 0, host: '127.0.0.1' })).rejects.toThrow('test_refuses_restore');
      } finally {
        await failing.close();
      }

      const db = openPool(first.databaseUrl, 2);
      try {
        expect(await Promise.all(seeded.map((bundle) => rowsOfPendingId(db, bundle.pendingId)))).toEqual(before);
        await db.query(`ALTER TABLE task_session_messages DROP CONSTRAINT test_refuses_restore`);
      } finally {
        await db.end();
      }

      const recovered = await startApp({ databaseUrl: first.databaseUrl });
      try {
        for (const [index, bundle] of seeded.entries()) {
          expect((await rowsOfPendingId(recovered.db, bundle.pendingId)).map((row) => row.metadata)).toEqual(before[index]!.map(restoredMetadata));
        }
      } finally {
        await recovered.close();
      }
    });
  });
});
