import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { traced } from '#observability';
import { inTransaction, ProcessLease } from '#persistence';
import { ReceiptService, type ReceiptSubject } from '#receipts';
import { askedByOfRows, resumePrompt, responseFor } from '../bundle/bundle.mapper.js';
import { type ClarificationRequest, type ClarificationResponse, ClarificationStatus } from '../bundle/clarification.types.js';
import type { NormalizedOutcome } from '../bundle/resolution.types.js';
import { ClaimRepository } from '../claim/claim.repository.js';
import type { ClaimPlan, ClaimResult } from '../claim/claim.types.js';
import { type Ballot, type BallotVerdict, castBallot } from '../routing/routing.rules.js';
import { VoteRepository } from '../routing/vote.repository.js';
import { WaiterStore } from '../wait/waiter.store.js';
import { eventFor } from './delivery.mapper.js';
import { type BundleSession, type Target, WinnerDelivery, type WinningAttempt } from './delivery.types.js';
import { ResumeDispatcher } from './resume.dispatcher.js';

/** The response an outcome sends to the agent. */
function responseOf(pendingId: string, outcome: NormalizedOutcome): ClarificationResponse {
  return responseFor(pendingId, outcome.answers, outcome.terminal === ClarificationStatus.Rejected, outcome.rejectReason);
}

/** What the receipt of `outcome` is signed over (the answers as every surface reports them). */
function receiptSubject(target: Target, attempt: WinningAttempt, outcome: NormalizedOutcome, workspaceId: string): ReceiptSubject {
  const { request } = target;
  const rejected = outcome.terminal === ClarificationStatus.Rejected;
  return {
    pendingId: request.pending_id,
    outcome: rejected ? 'rejected' : 'answered',
    resolution: {
      answers: rejected ? [] : outcome.answers.map((answer) => ({ question_id: answer.question_id, selected_options: [...answer.selected_options], custom_text: answer.custom_text })),
      rejected,
    },
    actionDigest: request.action_digest ?? null,
    askedBy: askedByOfRows(attempt.rows),
    answeredBy: attempt.answeredBy,
    surface: attempt.winner.surface,
    sessionId: request.session_id,
    taskId: request.task_id,
    workspaceId,
  };
}

/**
 * The claim itself: the one transaction that decides whether an answer wins the bundle and, when it
 * does, how the answer will reach the agent (the plan stored with the claim).
 */
@Injectable()
export class ClaimService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly claims: ClaimRepository,
    private readonly votes: VoteRepository,
    private readonly receipts: ReceiptService,
    private readonly waiters: WaiterStore,
    private readonly resume: ResumeDispatcher,
    private readonly lease: ProcessLease,
  ) {}

  /**
   * The claim (baseline "completeActiveBundle"), in one transaction this service owns: serialize on
   * the session's lock (learning which other live process holds the agent's wait, if any); a routed
   * bundle's answer is a ballot, cast there — it claims only when its votes decide the bundle, and
   * then with the outcome they decided, whatever the deciding voter's own answer; sign the receipt
   * (stored by the claim statement, so a receipt exists exactly when the resolution does); choose the
   * plan; then the one claim statement.
   */
  claim(target: Target, attempt: WinningAttempt, turnId: string): Promise<ClaimResult> {
    const { request } = target;
    const pendingId = request.pending_id;
    return traced('parley.claim', { 'parley.pending_id': pendingId }, () =>
      inTransaction(this.dataSource, async (manager): Promise<ClaimResult> => {
        const locked = await this.claims.lockSession(manager, {
          sessionId: request.session_id,
          pendingId,
          processId: this.lease.id,
          bundleTaskId: request.task_id,
        });
        const verdict = attempt.ballot === undefined ? undefined : await this.castBallot(manager, pendingId, attempt.ballot);
        if (verdict !== undefined && verdict.kind !== 'decided') return { kind: 'voted', verdict };
        const outcome = verdict?.outcome ?? attempt.outcome;
        const receipt = await this.receipts.issue(receiptSubject(target, attempt, outcome, locked.workspaceId));
        const response = { ...responseOf(pendingId, outcome), receipt };
        const webhook = this.webhookOf(response, attempt.session);
        const plan = this.plan({ pendingId, request, response, remoteAgent: locked.remoteAgent, webhook, turnId });
        const answered = outcome.terminal === ClarificationStatus.Answered;
        const rows = await this.claims.completeActiveBundle(
          manager,
          {
            pendingId,
            sessionId: request.session_id,
            sessionTaskId: attempt.session.task_id,
            bundleTaskId: request.task_id,
            terminal: outcome.terminal,
            responses: answered ? new Map(outcome.answers.map((answer) => [answer.question_id, answer])) : undefined,
            winner: attempt.winner,
            // A decided ballot records the reason its votes decided on, not the deciding voter's.
            audit: verdict === undefined ? attempt.audit : { ...attempt.audit, rejectReason: answered || outcome.rejectReason === '' ? null : outcome.rejectReason },
          },
          plan,
          receipt,
        );
        return rows.length === 0 ? { kind: 'lost' } : { kind: 'won', plan, response };
      }),
    );
  }

  /** Casts a routed bundle's ballot under the session's lock: the vote is recorded when it counts. */
  private async castBallot(manager: EntityManager, pendingId: string, ballot: Ballot): Promise<BallotVerdict> {
    const verdict = castBallot(await this.votes.ballotBox(pendingId, manager), ballot);
    if ((verdict.kind === 'recorded' || verdict.kind === 'decided') && verdict.record) await this.votes.insert(pendingId, ballot, manager);
    return verdict;
  }

  /** The resume webhook an answer goes to when no agent waits live (none for a rejection). */
  private webhookOf(response: ClarificationResponse, session: BundleSession): string | undefined {
    return response.rejected ? undefined : this.resume.webhookFor(session.resume_url);
  }

  private plan(input: {
    pendingId: string;
    request: ClarificationRequest;
    response: ClarificationResponse;
    remoteAgent: string | undefined;
    webhook: string | undefined;
    turnId: string;
  }): ClaimPlan {
    const { pendingId, request, response, remoteAgent, webhook, turnId } = input;
    if (this.waiters.hasAgent(pendingId)) return { kind: 'deliver', owner: this.lease.id };
    if (remoteAgent) return { kind: 'deliver', owner: remoteAgent, handoff: response };
    if (response.rejected) return { kind: 'final', event: eventFor(response, WinnerDelivery.StaleDismissed) };
    if (webhook) return { kind: 'resume', owner: this.lease.id, successor: { turnId }, webhook };
    return {
      kind: 'final',
      event: eventFor(response, WinnerDelivery.Resumed),
      successor: {
        turnId,
        queuedPrompt: {
          messageId: randomUUID(),
          content: resumePrompt(request, response),
          metadata: { resume_of: pendingId, response },
        },
      },
    };
  }
}
