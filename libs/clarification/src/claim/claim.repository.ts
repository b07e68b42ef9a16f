import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { traced } from '#observability';
import { inTransaction, ProcessLease } from '#persistence';
import { type Answer, ClarificationStatus } from '../bundle/clarification.types.js';
import { castBallot } from '../routing/routing.rules.js';
import { VoteRepository } from '../routing/vote.repository.js';
import { CLAIM, CLAIM_LOCK, settledSignal } from './claim.sql.js';
import type { ClaimedRow, ClaimPlan, ClaimRequest, ClaimResult, DecidedOutcome } from './claim.types.js';

/** Chooses the winning claim's plan once the session is locked (knowing the outcome a ballot's votes decided, if any). */
type PlanDecision = (remoteAgent: string | undefined, decided: DecidedOutcome, receipt: string) => ClaimPlan;

/** The one claim: the active rows move to their terminal state, with everything the plan commits with. */
@Injectable()
export class ClaimRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lease: ProcessLease,
    private readonly votes: VoteRepository,
  ) {}

  /**
   * The claim (baseline "completeActiveBundle"), in one transaction: serialize on the session's
   * advisory lock (every lifecycle change takes it too), let `decide` choose the plan (knowing which
   * other live process holds the agent's wait, if any) and sign the receipt, then one statement moves the active rows to
   * their terminal state — with the plan's successor turn, queued prompt, hand-off, event, index and
   * signals. `claimed: false` means nothing was written (and no row lock was taken) — but a ballot's
   * vote, which is recorded (with the claim, when its votes decide the bundle: then the claim records
   * the decided outcome, which `decide` is given).
   */
  completeActiveBundle(request: ClaimRequest, self: string, decide: PlanDecision): Promise<ClaimResult> {
    if (request.terminal !== ClarificationStatus.Answered && request.terminal !== ClarificationStatus.Rejected) {
      throw new Error(`invalid clarification terminal status: ${String(request.terminal)}`);
    }
    return traced('parley.claim', { 'parley.pending_id': request.pendingId }, () => this.claimInTransaction(request, self, decide));
  }

  private claimInTransaction(request: ClaimRequest, self: string, decide: PlanDecision): Promise<ClaimResult> {
    return inTransaction(this.dataSource, async (manager) => {
      const [locked] = await CLAIM_LOCK.run<{ remote_agent: string | null; workspace_id: string | null }>(manager, {
        session_id: request.sessionId,
        pending_id: request.pendingId,
        process_id: self,
        task_id: request.bundleTaskId,
      });
      let decided: DecidedOutcome;
      if (request.ballot) {
        const verdict = castBallot(await this.votes.ballotBox(request.pendingId, manager), request.ballot);
        if ((verdict.kind === 'recorded' || verdict.kind === 'decided') && verdict.record) {
          await this.votes.insert(request.pendingId, request.ballot, manager);
        }
        if (verdict.kind !== 'decided') return { claimed: false, rows: [], plan: undefined, verdict };
        decided = verdict.outcome;
        const answered = decided.terminal === ClarificationStatus.Answered;
        request = {
          ...request,
          terminal: decided.terminal,
          responses: answered ? new Map(decided.answers.map((answer) => [answer.question_id, answer])) : undefined,
          audit: { ...request.audit, rejectReason: answered || decided.rejectReason === '' ? null : decided.rejectReason },
        };
      }
      const receipt = await request.seal(decided, locked?.workspace_id ?? '');
      const plan = decide(locked?.remote_agent ?? undefined, decided, receipt);
      const rows = await this.claimRows(manager, request, plan, receipt);
      if (rows.length === 0) return { claimed: false, rows: [], plan: undefined };
      for (const row of rows) {
        if (!row.metadata.question_id) throw new Error(`clarification message ${row.id} is missing question_id`);
        if (request.terminal === ClarificationStatus.Answered && !row.metadata.response) {
          throw new Error(`clarification message ${row.id} has no response for ${row.metadata.question_id}`);
        }
      }
      return { claimed: true, rows, plan };
    });
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
