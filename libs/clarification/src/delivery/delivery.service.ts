import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DATABASE_UNAVAILABLE_MESSAGE, faultPoint, isDatabaseUnavailable } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { DataSource, type EntityManager } from 'typeorm';
import { ParleyMetrics, traced } from '#observability';
import { CommitOutcomeUnknownError, DatabaseAvailability, inTransaction, ProcessLease } from '#persistence';
import { ReceiptService, type ReceiptSubject } from '#receipts';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { askedByOfRows, resumePrompt, responseFor } from '../bundle/bundle.mapper.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { type ClarificationRequest, type ClarificationResponse, ClarificationStatus } from '../bundle/clarification.types.js';
import { settlementOf, Settlement } from '../bundle/settlement.rules.js';
import { ClaimRepository } from '../claim/claim.repository.js';
import type { ClaimPlan, ClaimResult } from '../claim/claim.types.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { WaiterStore } from '../wait/waiter.store.js';
import { DeliveryEndService } from './delivery-end.service.js';
import { DeliveryFlightStore } from './delivery-flight.store.js';
import { eventFor, recordsResponse, targetOf } from './delivery.mapper.js';
import { type BallotResult, type BundleSession, type Target, WinnerDelivery, type WinnerResult, type WinningAttempt } from './delivery.types.js';
import type { NormalizedOutcome } from '../bundle/resolution.types.js';
import { type Ballot, type BallotVerdict, castBallot } from '../routing/routing.rules.js';
import { VoteRepository } from '../routing/vote.repository.js';
import { LiveDeliveryService } from './live-delivery.service.js';
import { ResumeHandoffService } from './resume-handoff.service.js';
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

/** Extra time a winner gives another replica to report the outcome of a delivery handed to it. */
const REMOTE_GRACE_MS = 1_000;

/**
 * The winner's path (spec R1, R7, R7a): claim, then carry the answer to the agent — to its live wait
 * (here, or on the replica holding it), or by resuming it exactly once through its webhook or a queued
 * prompt. The answer becomes final only once delivered or accepted; until then the claim is owned by
 * this process's lease, and a failure rolls it back so the bundle is pending again — except a resume
 * whose outcome is unknown, which stays owed (ResumeHandoffService).
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly dataSource: DataSource,
    private readonly claims: ClaimRepository,
    private readonly votes: VoteRepository,
    private readonly bundles: BundleRepository,
    private readonly waiters: WaiterStore,
    private readonly signals: BundleSignals,
    private readonly resume: ResumeDispatcher,
    private readonly lease: ProcessLease,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: ParleyMetrics,
    private readonly availability: DatabaseAvailability,
    private readonly ownership: DeliveryOwnershipRepository,
    private readonly flights: DeliveryFlightStore,
    private readonly live: LiveDeliveryService,
    private readonly resumes: ResumeHandoffService,
    private readonly ends: DeliveryEndService,
    private readonly receipts: ReceiptService,
  ) {}

  /**
   * Claims the bundle and, when the claim is won, delivers the answer; `undefined` when it was lost. A
   * routed bundle's answer is a ballot: unless its votes decide the bundle (then the claim carries the
   * decided outcome), what the vote came to is returned instead.
   */
  async claimAndDeliver(attempt: WinningAttempt): Promise<WinnerResult | BallotResult | undefined> {
    const target = targetOf(attempt.rows);
    const pendingId = target.request.pending_id;
    const turnId = randomUUID();
    return this.flights.run(pendingId, async () => {
      const claim = await this.claim(target, attempt, turnId).catch((error: unknown) => this.claimFailed(pendingId, error));
      if (claim.kind === 'lost') return undefined;
      if (claim.kind === 'voted') return { verdict: claim.verdict };
      await faultPoint('claim.committed');
      const delivery = await this.carryOut(claim.plan, target, claim.response, attempt.session);
      return delivery === undefined ? undefined : { delivery, response: claim.response };
    });
  }

  /**
   * The claim (baseline "completeActiveBundle"), in one transaction this service owns: serialize on
   * the session's lock (learning which other live process holds the agent's wait, if any); a routed
   * bundle's answer is a ballot, cast there — it claims only when its votes decide the bundle, and
   * then with the outcome they decided, whatever the deciding voter's own answer; sign the receipt
   * (stored by the claim statement, so a receipt exists exactly when the resolution does); choose the
   * plan; then the one claim statement.
   */
  private async claim(target: Target, attempt: WinningAttempt, turnId: string): Promise<ClaimResult> {
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

  /** A claim that threw: what its caller is told (the same errors whichever statement failed). */
  private async claimFailed(pendingId: string, error: unknown): Promise<never> {
    if (error instanceof CommitOutcomeUnknownError) {
      // The claim may have won (then its delivery, if any, is this process's sweeper's to carry out) or not.
      this.logger.warn({ msg: 'claim commit outcome unknown', pending_id: pendingId, err: String(error.cause) });
      throw ClarificationError.outcomeUnknown();
    }
    if (isDatabaseUnavailable(error)) throw error;
    if (await this.availability.explains(error)) {
      this.logger.warn({ msg: 'claim failed while the database was away', pending_id: pendingId, err: String(error) });
      throw new Error(DATABASE_UNAVAILABLE_MESSAGE, { cause: error });
    }
    this.logger.error({ msg: 'claim failed', pending_id: pendingId, err: String(error) });
    throw new ClarificationError(ClarificationErrorCode.Internal, 'the clarification could not be resolved');
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

  /** How the answer reached the agent; `undefined` when this claim was rolled back and another answer became final. */
  private async carryOut(plan: ClaimPlan, target: Target, response: ClarificationResponse, session: BundleSession): Promise<WinnerDelivery | undefined> {
    switch (plan.kind) {
      case 'final': {
        const delivery = response.rejected ? WinnerDelivery.StaleDismissed : WinnerDelivery.Resumed;
        if (!response.rejected) this.metrics.resumeHandoff('queued');
        this.ends.announceFinal(target, response, delivery);
        return delivery;
      }
      case 'deliver':
        if (plan.owner === this.lease.id) return this.live.deliverHere(target, response);
        return this.awaitRemoteDelivery(plan.owner, target, response, session, this.webhookOf(response, session));
      case 'resume':
        return this.resumes.throughWebhook(target, response, plan.successor.turnId, plan.webhook, session);
    }
  }

  /**
   * Another replica holds the agent's wait and was handed the answer: report what became of it. If it
   * did not take the hand-off within the bound, the winner takes the claim back and resumes the agent
   * itself (nothing waits on a replica that does not answer).
   */
  private async awaitRemoteDelivery(
    remote: string,
    target: Target,
    response: ClarificationResponse,
    session: BundleSession,
    webhook: string | undefined,
  ): Promise<WinnerDelivery | undefined> {
    const pendingId = target.request.pending_id;
    const change = this.signals.nextChange(pendingId, this.config.deliveryConfirmTimeoutMs + REMOTE_GRACE_MS);
    let state = await this.bundles.findBundleState(pendingId);
    if (settlementOf(state.rows, state.active) === Settlement.Delivering) {
      await change.changed;
      state = await this.bundles.findBundleState(pendingId);
    } else {
      change.cancel();
    }
    switch (settlementOf(state.rows, state.active)) {
      case Settlement.Final:
        // Final, but possibly another answer's: this claim was rolled back and another won before this read.
        return recordsResponse(state.rows, response) ? WinnerDelivery.LiveWaiter : undefined;
      case Settlement.Delivering:
        if (!(await this.ownership.takeOver(pendingId, remote, this.lease.id))) throw ClarificationError.inProgress();
        this.logger.warn({ msg: 'hand-off not taken in time; resuming the agent instead', pending_id: pendingId, replica: remote });
        return this.resumes.resumeInstead(target, response, session, webhook);
      case Settlement.Open:
        if (state.active) {
          throw new ClarificationError(
            ClarificationErrorCode.DeliveryFailed,
            'the answer could not be delivered to the waiting agent; the clarification is pending again and the answer can be retried',
          );
        }
        throw ClarificationError.notActive();
    }
  }
}
