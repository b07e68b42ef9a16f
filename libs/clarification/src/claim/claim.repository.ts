import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ProcessLease } from '#persistence';
import { type Answer, ClarificationStatus } from '../bundle/clarification.types.js';
import { CLAIM, CLAIM_LOCK, settledSignal } from './claim.sql.js';
import type { ClaimedRow, ClaimLock, ClaimPlan, ClaimRequest } from './claim.types.js';

/**
 * The claim's statements, each run in the transaction its caller owns (ClaimService.claim):
 * the session's lock, then — once the caller has decided the plan — the one claim statement. A routed
 * bundle's ballot box is VoteRepository's, read and written between the two.
 */
@Injectable()
export class ClaimRepository {
  constructor(private readonly lease: ProcessLease) {}

  /**
   * Serializes on the session's advisory lock (every lifecycle change takes it too), reading with it
   * which other live process holds the agent's wait, if any, and the bundle task's workspace (which
   * the receipt the claim stores names; '' when none).
   */
  async lockSession(
    manager: EntityManager,
    target: { sessionId: string; pendingId: string; processId: string; bundleTaskId: string },
  ): Promise<ClaimLock> {
    const [locked] = await CLAIM_LOCK.run<{ remote_agent: string | null; workspace_id: string | null }>(manager, {
      session_id: target.sessionId,
      pending_id: target.pendingId,
      process_id: target.processId,
      task_id: target.bundleTaskId,
    });
    return { remoteAgent: locked?.remote_agent ?? undefined, workspaceId: locked?.workspace_id ?? '' };
  }

  /**
   * The claim (baseline "completeActiveBundle"): one statement moves the active rows to their terminal
   * state — with the plan's successor turn, queued prompt, hand-off, event, index, signals, the
   * winning audit row and the signed receipt. No rows means the claim was lost and nothing was written
   * (and no row lock was taken). A row the claim would leave without question id or response throws,
   * so the caller's transaction rolls back rather than commit a resolution nobody can read.
   */
  async completeActiveBundle(manager: EntityManager, request: ClaimRequest, plan: ClaimPlan, receipt: string): Promise<ClaimedRow[]> {
    if (request.terminal !== ClarificationStatus.Answered && request.terminal !== ClarificationStatus.Rejected) {
      throw new Error(`invalid clarification terminal status: ${String(request.terminal)}`);
    }
    const rows = await this.claimRows(manager, request, plan, receipt);
    for (const row of rows) {
      if (!row.metadata.question_id) throw new Error(`clarification message ${row.id} is missing question_id`);
      if (request.terminal === ClarificationStatus.Answered && !row.metadata.response) {
        throw new Error(`clarification message ${row.id} has no response for ${row.metadata.question_id}`);
      }
    }
    return rows;
  }

  private async claimRows(manager: EntityManager, request: ClaimRequest, plan: ClaimPlan, receipt: string): Promise<ClaimedRow[]> {
    const final = plan.kind === 'final';
    const successor = plan.kind === 'deliver' ? undefined : plan.successor;
    const owner = plan.kind === 'final' ? null : plan.owner;
    const handoff = plan.kind === 'deliver' && plan.handoff ? JSON.stringify(plan.handoff) : null;
    const signal = final
      ? settledSignal(request.pendingId, this.lease.id)
      : handoff
        ? JSON.stringify({ pending_id: request.pendingId, kind: 'deliver', owner })
        : null;
    const responses = Object.fromEntries(request.responses ?? new Map<string, Answer>());
    const rows = await CLAIM.run<ClaimedRow & { written?: unknown }>(manager, {
      pending_id: request.pendingId,
      terminal: request.terminal,
      responses: JSON.stringify(responses),
      final,
      owner,
      successor_turn_id: successor?.turnId ?? null,
      session_id: request.sessionId,
      session_task_id: request.sessionTaskId,
      bundle_task_id: request.bundleTaskId,
      prompt_message_id: successor?.queuedPrompt?.messageId ?? null,
      prompt_content: successor?.queuedPrompt?.content ?? null,
      prompt_metadata: successor?.queuedPrompt ? JSON.stringify(successor.queuedPrompt.metadata) : null,
      handoff,
      event_type: plan.kind === 'final' ? plan.event.type : null,
      event_payload: plan.kind === 'final' ? JSON.stringify(plan.event.payload) : null,
      signal,
      winner: JSON.stringify(request.winner),
      attempt_id: request.audit.attemptId,
      reject_reason: request.audit.rejectReason,
      receipt,
    });
    return rows.map(({ id, metadata }) => ({ id, metadata }));
  }
}
