import { assertNever, DomainError, ErrorCode } from '#common';

/** Every status a command result carries (the connector contract, docs/api/commands.md), exactly as the reference spells them. */
export enum CommandStatus {
  Accepted = 'accepted',
  DryRun = 'dry_run',
  Pending = 'pending',
  AnswerInProgress = 'answer_in_progress',
  DecisionNotPending = 'decision_not_pending',
  UnknownWorker = 'unknown_worker',
  InvalidSelection = 'invalid_selection',
  UnsupportedDecision = 'unsupported_decision',
  DuplicateRequest = 'duplicate_request',
  RequestStateUncertain = 'request_state_uncertain',
  BackendUnavailable = 'backend_unavailable',
  InvalidRequest = 'invalid_request',
  /** The decision is routed to answerers the caller is not among. */
  NotEligible = 'not_eligible',
  /** The decision takes votes, and the caller already voted differently. */
  AlreadyVoted = 'already_voted',
}

/** The statuses of a failed command: the error codes of this module. */
export type DecisionErrorCode = Exclude<CommandStatus, CommandStatus.Accepted | CommandStatus.DryRun>;

/**
 * The one mapping of command statuses onto HTTP. The envelope is the contract (its disposition says
 * whether a result is final); the HTTP status only sorts it for clients that look no further.
 */
export function httpStatusOf(status: CommandStatus): number {
  switch (status) {
    case CommandStatus.Accepted:
    case CommandStatus.DryRun:
      return 200;
    case CommandStatus.Pending:
      return 202;
    case CommandStatus.InvalidRequest:
    case CommandStatus.InvalidSelection:
      return 400;
    case CommandStatus.NotEligible:
      return 403;
    case CommandStatus.UnknownWorker:
      return 404;
    case CommandStatus.AlreadyVoted:
    case CommandStatus.AnswerInProgress:
    case CommandStatus.DecisionNotPending:
    case CommandStatus.DuplicateRequest:
      return 409;
    case CommandStatus.UnsupportedDecision:
      return 422;
    case CommandStatus.RequestStateUncertain:
      return 500;
    case CommandStatus.BackendUnavailable:
      return 503;
    default:
      return assertNever(status);
  }
}

export class DecisionError extends DomainError<DecisionErrorCode> {
  constructor(
    code: DecisionErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(code, message);
  }

  get httpStatus(): number {
    return httpStatusOf(this.code);
  }

  /** Commands answer with their envelope (its `error.code` is the status); this is for any other surface. */
  get publicCode(): ErrorCode {
    switch (this.code) {
      case CommandStatus.InvalidRequest:
      case CommandStatus.InvalidSelection:
      case CommandStatus.UnsupportedDecision:
        return ErrorCode.ValidationError;
      case CommandStatus.UnknownWorker:
        return ErrorCode.NotFound;
      case CommandStatus.NotEligible:
        return ErrorCode.NotEligible;
      case CommandStatus.AlreadyVoted:
      case CommandStatus.AnswerInProgress:
      case CommandStatus.DecisionNotPending:
      case CommandStatus.DuplicateRequest:
        return ErrorCode.Conflict;
      case CommandStatus.Pending:
      case CommandStatus.BackendUnavailable:
        return ErrorCode.Unavailable;
      case CommandStatus.RequestStateUncertain:
        return ErrorCode.InternalError;
      default:
        return assertNever(this.code);
    }
  }

  static invalidRequest = (message: string, field: string) =>
    new DecisionError(CommandStatus.InvalidRequest, message, { field });
  static invalidSelection = (message: string, field: string) =>
    new DecisionError(CommandStatus.InvalidSelection, message, { field });
  static unknownWorker = () => new DecisionError(CommandStatus.UnknownWorker, 'target worker does not exist or is not open');
  static notPending = () =>
    new DecisionError(CommandStatus.DecisionNotPending, "decision is not the worker's current pending decision");
  static unsupported = (reason: string) =>
    new DecisionError(CommandStatus.UnsupportedDecision, `the worker's current decision cannot be answered by a command: ${reason}`);
  static notEligible = (message = 'you are not among the answerers of this decision') => new DecisionError(CommandStatus.NotEligible, message);
  static alreadyVoted = (message: string) => new DecisionError(CommandStatus.AlreadyVoted, message);
  static answerInProgress = () =>
    new DecisionError(CommandStatus.AnswerInProgress, 'another request is currently answering this decision');
  static inProgress = () => new DecisionError(CommandStatus.Pending, 'request is already in progress');
  static duplicate = () =>
    new DecisionError(CommandStatus.DuplicateRequest, 'request_id reused with a different canonical mutation');
  static uncertain = (message: string) => new DecisionError(CommandStatus.RequestStateUncertain, message);
  static unavailable = () =>
    new DecisionError(CommandStatus.BackendUnavailable, 'the command store is temporarily unavailable; nothing was sent');
}
