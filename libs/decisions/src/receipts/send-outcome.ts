import { ClarificationError, ClarificationErrorCode, type Resolution } from '#clarification';
import { assertNever } from '#common';
import { Disposition, failureEnvelope, liveEcho, toReply, type CommandReply } from '../command/command.envelope.js';
import type { TerminalState } from './command-receipt.repository.js';
import { CommandStatus, DecisionError } from '../decisions.errors.js';

/** What one ResolveBundle call proved: the receipt's terminal state and, unless accepted, why. */
export type SendOutcome = { state: 'accepted'; voted: boolean } | { state: 'rejected' | 'uncertain'; error: DecisionError };

const MAY_HAVE_LANDED = 'the answer may or may not have been recorded; it will not be resent';

export function dispositionOf(state: TerminalState): Disposition {
  switch (state) {
    case 'accepted':
      return Disposition.TerminalAccepted;
    case 'rejected':
      return Disposition.TerminalRejected;
    case 'uncertain':
      return Disposition.TerminalUncertain;
    default:
      return assertNever(state);
  }
}

/**
 * Only a claim this command won is `accepted` — or, on a routed decision, its vote recorded (not
 * resolved yet: `voted`); a loser never is, whatever the winner said.
 */
export function outcomeOfResolution(resolution: Resolution): SendOutcome {
  if (resolution.claimed) return { state: 'accepted', voted: false };
  if (resolution.vote !== undefined) return { state: 'accepted', voted: true };
  return { state: 'rejected', error: DecisionError.notPending() };
}

/**
 * The one mapping of ResolveBundle's errors. Not found, validation and not-active are raised before
 * its claim could write anything, so they are definite rejections; every other error may come after
 * the claim committed: uncertain, never resent.
 */
export function outcomeOfResolveError(error: unknown): SendOutcome {
  const uncertain: SendOutcome = { state: 'uncertain', error: DecisionError.uncertain(MAY_HAVE_LANDED) };
  if (!(error instanceof ClarificationError)) return uncertain;
  switch (error.code) {
    case ClarificationErrorCode.NotFound:
      return { state: 'rejected', error: DecisionError.unknownWorker() };
    case ClarificationErrorCode.Validation:
      return { state: 'rejected', error: new DecisionError(CommandStatus.InvalidSelection, error.message, { field: 'params.selection' }) };
    case ClarificationErrorCode.NotEligible:
      return { state: 'rejected', error: DecisionError.notEligible(error.message) };
    case ClarificationErrorCode.AlreadyVoted:
      return { state: 'rejected', error: DecisionError.alreadyVoted(error.message) };
    case ClarificationErrorCode.NotActive:
    case ClarificationErrorCode.Expired:
      return { state: 'rejected', error: DecisionError.notPending() };
    case ClarificationErrorCode.SessionEnded:
    case ClarificationErrorCode.TaskArchived:
    case ClarificationErrorCode.WaitEnded:
    case ClarificationErrorCode.DeliveryFailed:
    case ClarificationErrorCode.InProgress:
    case ClarificationErrorCode.OutcomeUnknown:
    case ClarificationErrorCode.Internal:
      return uncertain;
    default:
      return assertNever(error.code);
  }
}

/** The envelope of a started send whose owner stopped (lease expired) before recording its outcome. */
export function abandonedSendReply(requestId: string): CommandReply {
  return toReply(
    failureEnvelope(
      liveEcho(requestId),
      DecisionError.uncertain(`the sender stopped before recording the outcome; ${MAY_HAVE_LANDED}`),
      Disposition.TerminalUncertain,
    ),
  );
}
