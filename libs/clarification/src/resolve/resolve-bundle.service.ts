import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Caller, callerId, callerReach } from '#authorization';
import { APP_CONFIG, type AppConfig } from '#config';
import { ParleyMetrics } from '#observability';
import { AuditRecorder } from '../audit/audit.recorder.js';
import { AuditOutcome, auditEntry, failureOf, rejectReasonOf } from '../audit/audit.types.js';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { bundleTaskId, receiptOfRows, recordedAnswers } from '../bundle/bundle.mapper.js';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { LifecycleEventCounter } from '../events/lifecycle-event.counter.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { BundleReadService, type ReadableBundle } from '../read/bundle-read.service.js';
import { type Answer, type BundleRow, type ClarificationResponse, ClarificationStatus, type TerminalStatus } from '../bundle/clarification.types.js';
import { DeliveryService } from '../delivery/delivery.service.js';
import type { Resolution } from './resolution.envelope.js';
import type { ResolutionSurface } from '../bundle/resolution-surface.types.js';
import type { NormalizedOutcome, ResolutionInput } from '../bundle/resolution.types.js';
import { claimedOutcome, validateOutcome } from './resolution.validation.js';
import { receiptIdentityOf, winnerIdentity } from '../bundle/resolved-by.rules.js';
import { Settlement, settlementOf, winnerStatus } from '../bundle/settlement.rules.js';
import type { BallotResult } from '../delivery/delivery.types.js';
import { type Ballot, ballotOfOutcome, mayAnswer, notEligible, routingOf, voterOf } from '../routing/routing.rules.js';


interface Attempt {
  id: string;
  caller: Caller;
  pendingId: string;
  input: ResolutionInput;
  surface: ResolutionSurface;
}

/** How many times one call may try the claim (a rolled-back winner lets a waiting loser try again). */
const MAX_CLAIM_ATTEMPTS = 3;
const SETTLE_GRACE_MS = 2_000;

/** R2/R2b: a winner's final answer, replayed to a loser (the reason is never stored ⇒ ""). */
function replayOf(status: TerminalStatus, answers: Answer[], receipt: string | undefined): Resolution {
  return { claimed: false, status, response: { answers, rejected: status === ClarificationStatus.Rejected, reject_reason: '' }, receipt: receipt ?? null };
}

function replay(rows: readonly BundleRow[]): Resolution {
  return replayOf(winnerStatus(rows) as TerminalStatus, recordedAnswers(rows), receiptOfRows(rows));
}

/** A vote that did not resolve its bundle: not final, so it carries no resolution — only how far the quorum is (Q2). */
function pendingVote(votes: number, required: number, replayed: boolean): Resolution {
  return {
    claimed: false,
    status: 'pending',
    response: { answers: [], rejected: false, reject_reason: '' },
    vote: { replayed, votes, required_answers: required },
    receipt: null,
  };
}

/**
 * ResolveBundle — the only way any surface resolves a bundle: resolve its task (M5) and authorize
 * (A1–A5, denial ⇒ not found) in one read → validate (N6–N8b, L16) → normalize (N3a) → claim by
 * delegation (P1: no claim SQL here) → loser branch (R2) or winner delivery (R7). A loser is told a
 * winner's answer only once it is final: while the winner's delivery is pending it waits for the
 * outcome, and if the winner was rolled back its own attempt proceeds (and may win).
 */
@Injectable()
export class ResolveBundleService {
  private readonly logger = new Logger('ResolveBundle');
  /**
   * The claim this process is making on each bundle, settled (never rejected) when it is over. Answers
   * that arrive meanwhile wait for it instead of queueing on the session's lock one after another — the
   * losers of a burst would each take the lock, run the claim statement and commit, in turn
   * (docs/benchmarks.md, contention). Only a wait: the claim itself is still the one claim, in the database. It settles to
   * the loser's replay when the claim won and its delivery is final (what the rows now record: the
   * answers are stored as normalized, in D2 order), so waiting losers need no re-read; otherwise to
   * `undefined`, and they read the rows.
   */
  private readonly claiming = new Map<string, Promise<Resolution | undefined>>();
  /**
   * The authorize read in flight for each bundle and reach, shared by answers that arrive while it
   * runs: a burst's losers then cost one read between them. A shared read may
   * predate an answer's arrival; to a resolver that is harmless — a winner, once read, is final; an
   * open bundle read stale is settled by the claim (a failed claim re-reads); a delivery in progress
   * is re-read. Only resolvers share it: a plain read must see its caller's own earlier writes.
   */
  private readonly reading = new Map<string, Promise<ReadableBundle>>();

  constructor(
    private readonly reader: BundleReadService,
    private readonly bundles: BundleRepository,
    private readonly delivery: DeliveryService,
    private readonly signals: BundleSignals,
    private readonly audit: AuditRecorder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: ParleyMetrics,
    private readonly lifecycleEvents: LifecycleEventCounter,
  ) {}

  /**
   * Resolves, and records the attempt in the audit trail: a winning claim records itself
   * in its own statement; any other outcome is queued once known, off the answer's path. The trail is
   * never read by the claim.
   */
  async resolve(caller: Caller, pendingId: string, input: ResolutionInput, surface: ResolutionSurface): Promise<Resolution> {
    const attempt = { id: randomUUID(), caller, pendingId, input, surface };
    const resolved = this.metrics.startResolution(surface);
    const who = callerId(caller);
    try {
      const resolution = await this.resolveOnce(attempt);
      const voted = resolution.vote !== undefined;
      resolved(resolution.claimed ? resolution.status : voted ? 'voted' : 'replayed');
      this.logger.log({ msg: 'resolution', caller: who, pending_id: pendingId, surface, claimed: resolution.claimed, status: resolution.status });
      if (!resolution.claimed) this.audit.record(auditEntry(attempt, voted ? AuditOutcome.Voted : AuditOutcome.Lost, null));
      return resolution;
    } catch (error) {
      const outcome = error instanceof ClarificationError ? error.code : 'error';
      resolved(outcome);
      this.logger.log({ msg: 'resolution', caller: who, pending_id: pendingId, surface, outcome });
      const failure = failureOf(error);
      if (failure) this.audit.record(auditEntry(attempt, failure.outcome, failure.detail));
      throw error;
    }
  }

  private async resolveOnce(attempt: Attempt): Promise<Resolution> {
    const { caller, pendingId, input, surface } = attempt;
    const bundle = await this.authorizedShared(caller, pendingId);
    // Q1: visible but not eligible is a 403 — after the authorizing read, so an invisible bundle stays a 404.
    const routing = routingOf(bundle.rows);
    if (routing !== undefined && !mayAnswer(caller, routing)) throw notEligible(routing);
    const validated = validateOutcome(input, bundle.rows);
    let { rows, active } = bundle;
    let waits = 0;
    for (let attempts = 0; ; ) {
      switch (settlementOf(rows, active)) {
        case Settlement.Final:
          return replay(rows);
        case Settlement.Delivering:
          ({ rows, active } = await this.readSettled(pendingId));
          if (settlementOf(rows, active) === Settlement.Delivering) throw ClarificationError.inProgress();
          break;
        case Settlement.Open: {
          const ahead = this.claiming.get(pendingId);
          if (ahead !== undefined && waits < MAX_CLAIM_ATTEMPTS) {
            waits += 1;
            const told = await ahead;
            if (told !== undefined) return told;
            ({ rows, active } = await this.readSettled(pendingId));
            if (settlementOf(rows, active) === Settlement.Delivering) throw ClarificationError.inProgress();
            break;
          }
          if (attempts === MAX_CLAIM_ATTEMPTS) throw ClarificationError.inProgress();
          attempts += 1;
          const outcome = claimedOutcome(validated, rows);
          // A routed bundle's answer is a vote (Q2): cast in the claim's transaction, never coalesced with another's claim.
          const ballot: Ballot | undefined =
            routing === undefined ? undefined : { caller, voter: voterOf(caller), surface, attemptId: attempt.id, own: ballotOfOutcome(outcome) };
          const claim = () =>
            this.delivery.claimAndDeliver({
              rows,
              session: bundle.session,
              outcome,
              winner: winnerIdentity(caller, surface),
              answeredBy: receiptIdentityOf(caller),
              audit: { attemptId: attempt.id, rejectReason: rejectReasonOf(input) },
              ballot,
            });
          const won = ballot === undefined ? await this.claimedAlone(pendingId, outcome, claim) : await claim();
          if (won !== undefined && 'verdict' in won) {
            const told = this.ballotTold(won);
            if (told?.vote?.replayed === false) this.countVote(pendingId, rows);
            if (told !== undefined) return told;
          } else if (won !== undefined) {
            return {
              claimed: true,
              status: won.response.rejected ? ClarificationStatus.Rejected : ClarificationStatus.Answered,
              response: { answers: won.response.answers, rejected: won.response.rejected, reject_reason: won.response.reject_reason },
              receipt: won.response.receipt ?? null,
            };
          }
          // R2a: the loser's one re-read — made once the winner's delivery outcome is known.
          const settled = await this.readSettled(pendingId);
          ({ rows, active } = settled);
          if (settlementOf(rows, active) === Settlement.Delivering) throw ClarificationError.inProgress();
          // No winner now: active ⇒ a winner was rolled back meanwhile (seen or not), and this attempt proceeds;
          // not active ⇒ 409 — unless another claim won since the read, which the next round of the loop handles.
          if (settlementOf(rows, active) === Settlement.Open && !settled.reopened && !active) {
            ({ rows, active } = await this.bundles.findBundleState(pendingId));
            if (settlementOf(rows, active) === Settlement.Open && !active) throw ClarificationError.notActive();
          }
          break;
        }
      }
    }
  }

  /** A new vote on a bundle that stays open (its statement sent the `voted` signal, which redraws the chat cards). */
  private countVote(pendingId: string, rows: BundleRow[]): void {
    this.lifecycleEvents.voted({ pending_id: pendingId, session_id: rows[0]?.task_session_id ?? '', task_id: bundleTaskId(rows) });
  }

  /** What a ballot that did not claim tells its voter; undefined when the bundle was not active (the loser's path follows). */
  private ballotTold({ verdict }: BallotResult): Resolution | undefined {
    switch (verdict.kind) {
      case 'recorded':
        return pendingVote(verdict.votes, verdict.required_answers, verdict.replayed);
      case 'conflict':
        throw ClarificationError.alreadyVoted();
      case 'not_eligible':
        throw notEligible(verdict.routing);
      case 'inactive':
        return undefined;
    }
  }

  /** The bundle as `caller` may see it, read once for every answer by the same reach meanwhile (see `reading`). */
  private async authorizedShared(caller: Caller, pendingId: string): Promise<ReadableBundle> {
    const key = JSON.stringify([pendingId, callerReach(caller)]);
    const shared = this.reading.get(key);
    if (shared !== undefined) {
      // A read that began before the bundle was committed says "not found": this answer reads for itself.
      const joined = await shared.catch((error: unknown) => {
        if (error instanceof ClarificationError && error.code === ClarificationErrorCode.NotFound) return undefined;
        throw error;
      });
      if (joined !== undefined) return joined;
      return this.reader.authorizeBundle(caller, pendingId);
    }
    const read = this.reader.authorizeBundle(caller, pendingId);
    this.reading.set(key, read);
    try {
      return await read;
    } finally {
      this.reading.delete(key);
    }
  }

  /** Runs `claim`, letting answers to the same bundle that arrive meanwhile wait for it (see `claiming`). */
  private async claimedAlone<T extends object>(pendingId: string, outcome: NormalizedOutcome, claim: () => Promise<T | undefined>): Promise<T | undefined> {
    const running = claim();
    const over = running.then(
      (won) => (won === undefined ? undefined : replayOf(outcome.terminal, outcome.answers, 'response' in won ? (won.response as ClarificationResponse).receipt : undefined)),
      () => undefined,
    );
    if (!this.claiming.has(pendingId)) this.claiming.set(pendingId, over);
    try {
      return await running;
    } finally {
      if (this.claiming.get(pendingId) === over) this.claiming.delete(pendingId);
    }
  }

  /**
   * Reads the bundle and its activeness; while a winner's delivery is pending, waits (bounded) for its
   * outcome and reads once more. `reopened`: a pending delivery was seen and then rolled back.
   */
  private async readSettled(pendingId: string): Promise<{ rows: BundleRow[]; active: boolean; reopened: boolean }> {
    const bound = Math.max(this.config.resumeTimeoutMs, this.config.deliveryConfirmTimeoutMs) + SETTLE_GRACE_MS;
    const change = this.signals.nextChange(pendingId, bound);
    const state = await this.bundles.findBundleState(pendingId);
    if (settlementOf(state.rows, state.active) !== Settlement.Delivering) {
      change.cancel();
      return { ...state, reopened: false };
    }
    await change.changed;
    const settled = await this.bundles.findBundleState(pendingId);
    return { ...settled, reopened: settlementOf(settled.rows, settled.active) === Settlement.Open };
  }
}
