import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { type Answer, BundleReadService, validateOutcome } from '#clarification';
import {
  BundleRepository,
  bundleTaskId,
  type ClaimedRow,
  type ClaimPlan,
  ClaimRepository,
  DeliveryOwnershipRepository,
  DeliveryService,
  type TerminalStatus,
  winnerIdentity,
  type WinnerResult,
} from '#clarification/testing';
import { SYNTHETIC_CALLER } from '#authorization';
import { inTransaction } from '#persistence';
import type { TestApp } from './app.js';
import { type Db, syncBundleIndex } from './bundles.js';

/** The delivery owner the claim-only tests record (no process runs under it; see holdTestOwnerLease). */
export const TEST_OWNER = 'test-claimer';

/** Who the claims made directly by these helpers record as the winner. */
export const TEST_WINNER = winnerIdentity(SYNTHETIC_CALLER, 'rest');

/** A fresh attempt for the audit trail, as ResolveBundle gives every call one. */
const testAudit = () => ({ attemptId: randomUUID(), rejectReason: null });

/**
 * Gives TEST_OWNER a live lease, so the app's sweeper (which also runs when its LISTEN connection
 * reconnects, e.g. after a stall of a loaded machine) leaves the claims it owns alone.
 */
export async function holdTestOwnerLease(t: TestApp): Promise<void> {
  await t.db.query(
    `INSERT INTO parley_processes (id, expires_at) VALUES ($1, clock_timestamp() + interval '1 day')
     ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
    [TEST_OWNER],
  );
}

/** Lease timings long enough that no periodic sweep runs during a test of the claim alone. */
export const QUIET_LEASE = { leaseTtlMs: 3_600_000, leaseHeartbeatMs: 1_800_000 };

/**
 * The claim primitive (baseline "completeActiveBundle") on its own, the way the baseline states it:
 * the session's lock and the claim statement in one transaction, as ClaimService.claim
 * runs them; the claimed rows are marked as awaiting delivery, owned by TEST_OWNER; nothing is delivered.
 */
export function claimer(t: TestApp) {
  const dataSource = t.app.get(DataSource);
  const claims = t.app.get(ClaimRepository);
  const ownership = t.app.get(DeliveryOwnershipRepository);
  const bundles = t.app.get(BundleRepository);
  return {
    async completeActiveBundle(
      pendingId: string,
      terminal: TerminalStatus,
      responses: ReadonlyMap<string, Answer> | undefined,
      plan: ClaimPlan = { kind: 'deliver', owner: TEST_OWNER },
    ): Promise<{ claimed: boolean; rows: ClaimedRow[] }> {
      const rows = await bundles.findBundle(pendingId);
      const first = rows[0];
      if (!first) return { claimed: false, rows: [] };
      const request = {
        pendingId,
        sessionId: first.task_session_id,
        sessionTaskId: first.session_task_id ?? '',
        bundleTaskId: bundleTaskId(rows),
        terminal,
        responses,
        winner: TEST_WINNER,
        audit: testAudit(),
      };
      const claimed = await inTransaction(dataSource, async (manager) => {
        await claims.lockSession(manager, { ...request, processId: TEST_OWNER });
        return claims.completeActiveBundle(manager, request, plan, 'test-receipt');
      });
      return { claimed: claimed.length > 0, rows: claimed };
    },

    /** Rolls TEST_OWNER's undelivered claim back (what a failed delivery does). */
    async rollBack(pendingId: string): Promise<{ rolledBack: boolean; active: boolean }> {
      const sessionId = (await bundles.findBundle(pendingId))[0]?.task_session_id ?? '';
      const result = await ownership.abandon(pendingId, TEST_OWNER, sessionId, (manager, pendingIds) =>
        bundles.refreshSessionIndex(sessionId, pendingIds, manager),
      );
      return { rolledBack: result.rolledBack, active: result.active };
    },

    /** Confirms TEST_OWNER's claim as delivered (what a live waiter's confirmation does). */
    async finalize(pendingId: string): Promise<boolean> {
      const rows = await bundles.findBundle(pendingId);
      const first = rows[0];
      if (!first) return false;
      return ownership.finalize(pendingId, TEST_OWNER, first.task_session_id, bundleTaskId(rows), { type: 'ANSWERED', payload: {} });
    },
  };
}

export type Outcome = { answers: Answer[] } | { rejected: true; reason: string };

/**
 * What a winning ResolveBundle does after validation, called directly: the claim, then the winner's
 * delivery. Resolves with how it was delivered and the response it carried; undefined when lost.
 */
export async function claimAndDeliver(t: TestApp, pendingId: string, outcome: Outcome): Promise<WinnerResult | undefined> {
  const bundle = await t.app.get(BundleReadService).authorizeBundle(SYNTHETIC_CALLER, pendingId);
  const input = 'answers' in outcome ? { answers: outcome.answers } : { rejected: true, reject_reason: outcome.reason };
  const won = await t.app.get(DeliveryService).claimAndDeliver({ rows: bundle.rows, session: bundle.session, outcome: validateOutcome(input, bundle.rows), winner: TEST_WINNER, answeredBy: { kind: TEST_WINNER.kind, id: null }, audit: testAudit() });
  if (won !== undefined && 'verdict' in won) throw new Error('claimAndDeliver without a ballot returned a verdict');
  return won;
}

/** Runs `work` in one transaction of the app's data source (for repository methods that need one). */
export function inAppTransaction<T>(t: TestApp, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return t.app.get(DataSource).transaction(work);
}

/** A reserved successor turn as a resume once wrote it (legacy data): not authoritative until attempted. */
export async function reserveSuccessor(db: Db, sessionId: string, taskId: string, turnId: string, pendingId: string): Promise<void> {
  await db.query(
    `INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
     VALUES ($1, $2, $3, jsonb_build_object('prompt_dispatch_pending', true, 'resume_of', $4::text))`,
    [turnId, sessionId, taskId, pendingId],
  );
  await syncBundleIndex(db);
}

export async function markDispatchAttempted(db: Db, turnId: string): Promise<void> {
  await db.query(`UPDATE task_session_turns SET metadata = metadata || '{"prompt_dispatch_attempted": true}'::jsonb WHERE id = $1`, [turnId]);
  await syncBundleIndex(db);
}
