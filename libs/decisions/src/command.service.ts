import { createHash, randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { type Caller, callerId } from '#authorization';
import { ResolveBundleService } from '#clarification';
import { assertNever, faultPoint } from '#common';
import { CommandClock, COMMAND_LEASE_MS, LEASE_HEARTBEAT_MS, plus, RECEIPT_RETENTION_MS } from './receipts/command-clock.js';
import { CommandReceiptRepository, type Ownership, type ReceiptKey, type ReceiptRow } from './receipts/command-receipt.repository.js';
import {
  ANSWER_DECISION,
  type CommandReply,
  Disposition,
  type EnvelopeEcho,
  failureEnvelope,
  liveEcho,
  successEnvelope,
  toReply,
} from './command/command.envelope.js';
import {
  type AnswerDecisionRequest,
  type CanonicalMutation,
  canonicalMutation,
  echoOf,
  isLive,
  type LiveRequest,
  parseCommandRequest,
} from './command/command.request.js';
import { type CheckedDecision, DecisionCheckService } from './decision/decision-check.service.js';
import { CommandStatus, DecisionError } from './decisions.errors.js';
import { abandonedSendReply, dispositionOf, outcomeOfResolution, outcomeOfResolveError, type SendOutcome } from './receipts/send-outcome.js';

interface LiveCommand {
  request: LiveRequest;
  /** The receipt's identity: the caller's own request_id (another caller's use of the same id is invisible). */
  key: ReceiptKey;
  identity: CanonicalMutation;
  echo: EnvelopeEcho;
}

/** What an existing receipt says about a retry: an answer, or an abandoned reservation to re-drive. */
type Verdict = { kind: 'reply'; reply: CommandReply } | { kind: 'takeover'; receipt: ReceiptRow };

type Phase = 'unreserved' | 'reserved' | 'sending';

function tokenHash(): string {
  return createHash('sha256').update(randomBytes(32)).digest('hex');
}

function reply(command: LiveCommand, error: DecisionError, disposition: Disposition): CommandReply {
  return toReply(failureEnvelope(command.echo, error, disposition));
}

/**
 * POST /api/v1/commands — answer_decision (the connector contract, docs/api/commands.md). A dry run (the default) only runs
 * the read-only checks. A live request is decided first by the caller's own receipt of its request_id,
 * if any (replay, duplicate, in progress, or takeover of an abandoned reservation); then checks 1–6,
 * the reservation, the decision claim, send_started, and the one send: ResolveBundle.
 */
@Injectable()
export class CommandService {
  private readonly logger = new Logger('Commands');

  constructor(
    private readonly checks: DecisionCheckService,
    private readonly receipts: CommandReceiptRepository,
    private readonly resolver: ResolveBundleService,
    private readonly clock: CommandClock,
  ) {}

  async submit(caller: Caller, body: unknown): Promise<CommandReply> {
    let workerId: string | null = null;
    let result: CommandReply;
    try {
      const request = parseCommandRequest(body);
      workerId = request.workerId;
      result = isLive(request) ? await this.execute(caller, request) : await this.preview(caller, request);
    } catch (error) {
      if (!(error instanceof DecisionError)) this.logger.error({ msg: 'command failed before any reservation', err: String(error) });
      const failure = error instanceof DecisionError ? error : DecisionError.unavailable();
      result = toReply(failureEnvelope(echoOf(body), failure, Disposition.NoReceipt));
    }
    // Every attempt, never the answer's text.
    this.logger.log({
      msg: 'command',
      request_id: result.requestId,
      worker_id: workerId,
      dry_run: result.dryRun,
      status: result.status,
      disposition: result.disposition,
    });
    return result;
  }

  private async preview(caller: Caller, request: AnswerDecisionRequest): Promise<CommandReply> {
    const checked = await this.checks.check(caller, request);
    const echo = { action: ANSWER_DECISION, requestId: request.requestId, dryRun: true };
    return toReply(
      successEnvelope(echo, CommandStatus.DryRun, Disposition.NoReceipt, {
        target: { worker_id: checked.workerId },
        decision: { decision_ref: checked.decisionRef },
        delivery_state: 'not_submitted',
      }),
    );
  }

  private async execute(caller: Caller, request: LiveRequest): Promise<CommandReply> {
    const key: ReceiptKey = { callerKey: callerId(caller), requestId: request.requestId };
    const command: LiveCommand = { request, key, identity: canonicalMutation(request), echo: liveEcho(request.requestId) };
    const owner: Ownership = { ...key, ownerHash: tokenHash(), workerId: request.workerId, claimHash: tokenHash() };
    let phase: Phase = 'unreserved';
    let takeover: ReceiptRow | undefined;
    try {
      const existing = await this.receipts.find(key);
      const verdict = existing ? await this.judge(command, existing) : undefined;
      if (verdict?.kind === 'reply') return verdict.reply;
      takeover = verdict?.receipt;

      let checked: CheckedDecision;
      try {
        checked = await this.checks.check(caller, request);
        await this.assertNotHeld(checked, key);
      } catch (error) {
        // Without a receipt a typed failure goes back as no_receipt; an abandoned reservation is
        // terminalized by it — unless another request holds the decision: then it stays recoverable.
        if (!(error instanceof DecisionError) || !takeover) throw error;
        if (error.code === CommandStatus.AnswerInProgress) return reply(command, error, Disposition.InProgress);
        const owned = await this.reserve(command, owner, takeover);
        if (owned !== true) return owned;
        phase = 'reserved';
        return await this.finishReserved(command, owner, error);
      }

      const owned = await this.reserve(command, owner, takeover);
      if (owned !== true) return owned;
      phase = 'reserved';
      const claimedAt = this.clock.now();
      if (!(await this.receipts.claim(owner, checked.decisionRef, claimedAt, plus(claimedAt, COMMAND_LEASE_MS)))) {
        await this.receipts.release(owner, this.clock.now());
        return reply(command, DecisionError.answerInProgress(), Disposition.InProgress);
      }
      const startedAt = this.clock.now();
      if (!(await this.receipts.markSendStarted(owner, checked.pendingId, startedAt, plus(startedAt, COMMAND_LEASE_MS)))) {
        await this.receipts.releaseClaim(owner);
        return await this.reread(command);
      }
      phase = 'sending';
      return await this.send(caller, command, owner, checked);
    } catch (error) {
      if (error instanceof DecisionError) throw error;
      // An abandoned reservation of this request exists: it is still there, recoverable.
      return this.afterUnexpected(command, owner, takeover && phase === 'unreserved' ? 'reserved' : phase, error);
    }
  }

  /** Stored evidence decides a retry before any current state is read. */
  private async judge(command: LiveCommand, receipt: ReceiptRow): Promise<Verdict> {
    const answer = (result: CommandReply): Verdict => ({ kind: 'reply', reply: result });
    if (receipt.canonical_fingerprint !== command.identity.fingerprint) {
      return answer(reply(command, DecisionError.duplicate(), Disposition.TerminalRejected));
    }
    const now = this.clock.now();
    const leaseLive = receipt.owner_expires_at !== null && receipt.owner_expires_at > now;
    switch (receipt.state) {
      case 'accepted':
      case 'rejected':
      case 'uncertain':
        return answer(this.replay(receipt));
      case 'reserved':
        return leaseLive ? answer(reply(command, DecisionError.inProgress(), Disposition.InProgress)) : { kind: 'takeover', receipt };
      case 'send_started': {
        if (leaseLive) return answer(reply(command, DecisionError.inProgress(), Disposition.InProgress));
        await this.receipts.expireStaleSend(command.key, abandonedSendReply(receipt.request_id).body, now, plus(now, -RECEIPT_RETENTION_MS));
        return answer(await this.reread(command));
      }
      default:
        return assertNever(receipt.state);
    }
  }

  /** The stored envelope, byte for byte. */
  private replay(receipt: ReceiptRow): CommandReply {
    if (receipt.state !== 'accepted' && receipt.state !== 'rejected' && receipt.state !== 'uncertain') {
      throw new Error(`receipt ${receipt.request_id} is not terminal`);
    }
    return {
      status: receipt.status as CommandStatus,
      disposition: dispositionOf(receipt.state),
      requestId: receipt.request_id,
      dryRun: false,
      body: receipt.envelope ?? '',
    };
  }

  /** After losing a compare-and-swap: whatever the receipt now says (in progress unless it is final). */
  private async reread(command: LiveCommand): Promise<CommandReply> {
    const receipt = await this.receipts.find(command.key);
    if (receipt && receipt.canonical_fingerprint === command.identity.fingerprint && receipt.envelope !== null) return this.replay(receipt);
    if (receipt && receipt.canonical_fingerprint !== command.identity.fingerprint) {
      return reply(command, DecisionError.duplicate(), Disposition.TerminalRejected);
    }
    return reply(command, DecisionError.inProgress(), Disposition.InProgress);
  }

  /**
   * Check 6, before reserving: another request holds this decision — a winner's claim of its bundle is
   * being delivered (from any surface, on any replica), or another request's live claim of it.
   */
  private async assertNotHeld(checked: CheckedDecision, key: ReceiptKey): Promise<void> {
    if (checked.held) throw DecisionError.answerInProgress();
    const claim = await this.receipts.findClaim(checked.workerId);
    if (!claim) return;
    const own = claim.caller_key === key.callerKey && claim.request_id === key.requestId;
    const live = claim.expires_at > this.clock.now() && !own && claim.decision_ref === checked.decisionRef;
    if (claim.state === 'send_started' || live) throw DecisionError.answerInProgress();
  }

  /** A new reservation, or the takeover of an abandoned one; otherwise the receipt that won decides. */
  private async reserve(command: LiveCommand, owner: Ownership, takeover: ReceiptRow | undefined): Promise<true | CommandReply> {
    const now = this.clock.now();
    const expiresAt = plus(now, COMMAND_LEASE_MS);
    const won = takeover
      ? await this.receipts.takeOver({
          ...command.key,
          fingerprint: command.identity.fingerprint,
          previousOwnerHash: takeover.owner_token_hash ?? '',
          ownerHash: owner.ownerHash,
          now,
          expiresAt,
        })
      : await this.receipts.reserve({
          ...command.key,
          fingerprint: command.identity.fingerprint,
          canonicalJson: command.identity.json,
          workerId: command.request.workerId,
          ownerHash: owner.ownerHash,
          now,
          expiresAt,
        });
    if (won) return true;
    const current = await this.receipts.find(command.key);
    const verdict = current ? await this.judge(command, current) : undefined;
    return verdict?.kind === 'reply' ? verdict.reply : reply(command, DecisionError.inProgress(), Disposition.InProgress);
  }

  /** A typed failure caught after reserving is stored: terminal_rejected, replayed from then on. */
  private async finishReserved(command: LiveCommand, owner: Ownership, error: DecisionError): Promise<CommandReply> {
    const result = reply(command, error, Disposition.TerminalRejected);
    const stored = await this.receipts.finishReserved(owner, { state: 'rejected', status: result.status, envelope: result.body }, this.clock.now());
    return stored ? result : this.reread(command);
  }

  /** The one send: ResolveBundle, with the lease renewed while it runs; its outcome is stored once. */
  private async send(caller: Caller, command: LiveCommand, owner: Ownership, checked: CheckedDecision): Promise<CommandReply> {
    await faultPoint('command.send_started');
    const heartbeat = setInterval(() => {
      const now = this.clock.now();
      this.receipts.renew(owner, now, plus(now, COMMAND_LEASE_MS)).catch((error: unknown) => {
        this.logger.warn({ msg: 'command lease not renewed', request_id: owner.requestId, err: String(error) });
      });
    }, LEASE_HEARTBEAT_MS);
    heartbeat.unref();
    let outcome: SendOutcome;
    try {
      outcome = outcomeOfResolution(await this.resolver.resolve(caller, checked.pendingId, checked.input, 'command'));
    } catch (error) {
      outcome = outcomeOfResolveError(error);
      this.logger.warn({ msg: 'command send failed', request_id: owner.requestId, pending_id: checked.pendingId, outcome: outcome.state, err: String(error) });
    } finally {
      clearInterval(heartbeat);
    }
    await faultPoint('command.sent');
    const result =
      outcome.state === 'accepted'
        ? toReply(
            successEnvelope(command.echo, CommandStatus.Accepted, Disposition.TerminalAccepted, {
              target: { worker_id: checked.workerId },
              decision: { decision_ref: checked.decisionRef },
              pending_id: checked.pendingId,
              delivery_state: outcome.voted ? 'vote_recorded' : 'submitted',
            }),
          )
        : reply(command, outcome.error, dispositionOf(outcome.state));
    const stored = await this.receipts.finishSent(owner, { state: outcome.state, status: result.status, envelope: result.body }, this.clock.now());
    return stored ? result : this.reread(command);
  }

  /**
   * A database failure mid-command: before reserving nothing happened (backend_unavailable); before
   * sending the reservation is released and stays recoverable (pending); once sending, the outcome
   * is uncertain — the receipt stays send_started until its lease expires, then is stored uncertain.
   */
  private async afterUnexpected(command: LiveCommand, owner: Ownership, phase: Phase, error: unknown): Promise<CommandReply> {
    this.logger.error({ msg: 'command failed', request_id: owner.requestId, phase, err: String(error) });
    switch (phase) {
      case 'unreserved':
        return reply(command, DecisionError.unavailable(), Disposition.NoReceipt);
      case 'reserved':
        await Promise.allSettled([this.receipts.releaseClaim(owner), this.receipts.release(owner, this.clock.now())]);
        return reply(command, DecisionError.inProgress(), Disposition.InProgress);
      case 'sending':
        return reply(command, DecisionError.uncertain('the outcome could not be recorded; it will not be resent'), Disposition.TerminalUncertain);
      default:
        return assertNever(phase);
    }
  }
}
