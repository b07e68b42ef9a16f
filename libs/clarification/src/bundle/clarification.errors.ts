import { assertNever, DomainError, ErrorCode } from '#common';

export enum ClarificationErrorCode {
  NotFound = 'NOT_FOUND',
  Validation = 'VALIDATION_ERROR',
  NotActive = 'CONFLICT',
  /** A routed bundle: the caller sees it but is not among its answerers. */
  NotEligible = 'NOT_ELIGIBLE',
  /** A routed bundle: the voter already voted, differently. */
  AlreadyVoted = 'ALREADY_VOTED',
  SessionEnded = 'SESSION_ENDED',
  TaskArchived = 'TASK_ARCHIVED',
  WaitEnded = 'WAIT_ENDED',
  /** The bundle's deadline (`expires_in_seconds`) passed before anyone answered: the asking agent must not proceed as if answered. */
  Expired = 'EXPIRED',
  DeliveryFailed = 'DELIVERY_FAILED',
  /** A winner's delivery is not settled yet (in another process's hands, or slower than the bound): retry to learn it. */
  InProgress = 'IN_PROGRESS',
  /** This attempt's claim sent its COMMIT and the result never arrived: it may have won or not. */
  OutcomeUnknown = 'OUTCOME_UNKNOWN',
  Internal = 'INTERNAL_ERROR',
}

export class ClarificationError extends DomainError<ClarificationErrorCode> {
  constructor(code: ClarificationErrorCode, message: string) {
    super(code, message);
  }

  static notFound = () => new ClarificationError(ClarificationErrorCode.NotFound, 'clarification request not found');
  static validation = (message: string) => new ClarificationError(ClarificationErrorCode.Validation, message);
  static notActive = () => new ClarificationError(ClarificationErrorCode.NotActive, 'clarification request is no longer active');
  static inProgress = () =>
    new ClarificationError(
      ClarificationErrorCode.InProgress,
      "another answer won and is being delivered; its outcome is not known yet — retry to learn it",
    );
  /**
   * This attempt's claim sent its COMMIT and the result never arrived: it may have won or not. A 503
   * to retry — a retry of the same answer replays the committed winner, or claims the bundle.
   */
  static outcomeUnknown = () => new ClarificationError(ClarificationErrorCode.OutcomeUnknown, 'the outcome is not known; retry to learn it');
  static alreadyVoted = () =>
    new ClarificationError(ClarificationErrorCode.AlreadyVoted, 'already voted: you voted differently on this question; a vote cannot be changed');
  static sessionEnded = (state: string) => new ClarificationError(ClarificationErrorCode.SessionEnded, `session has ended (${state})`);
  static taskArchived = () => new ClarificationError(ClarificationErrorCode.TaskArchived, 'task is archived');
  /**
   * Any resume that did not end accepted — refused, timed out, or its target refused by the outbound
   * policy — in the same words, so an answer tells its caller nothing about the target (no port scan).
   */
  static resumeFailed = () => new ClarificationError(ClarificationErrorCode.DeliveryFailed, 'the agent could not be resumed; the answer can be retried');

  get httpStatus(): number {
    switch (this.code) {
      case ClarificationErrorCode.NotFound:
        return 404;
      case ClarificationErrorCode.Validation:
        return 400;
      case ClarificationErrorCode.NotEligible:
        return 403;
      case ClarificationErrorCode.AlreadyVoted:
      case ClarificationErrorCode.NotActive:
      case ClarificationErrorCode.SessionEnded:
      case ClarificationErrorCode.TaskArchived:
      case ClarificationErrorCode.Expired:
        return 409;
      case ClarificationErrorCode.WaitEnded:
        return 504;
      case ClarificationErrorCode.InProgress:
      case ClarificationErrorCode.OutcomeUnknown:
        return 503;
      case ClarificationErrorCode.DeliveryFailed:
      case ClarificationErrorCode.Internal:
        return 500;
      default:
        return assertNever(this.code);
    }
  }

  get publicCode(): ErrorCode {
    switch (this.code) {
      case ClarificationErrorCode.NotFound:
        return ErrorCode.NotFound;
      case ClarificationErrorCode.Validation:
        return ErrorCode.ValidationError;
      case ClarificationErrorCode.NotEligible:
        return ErrorCode.NotEligible;
      case ClarificationErrorCode.AlreadyVoted:
      case ClarificationErrorCode.NotActive:
      case ClarificationErrorCode.SessionEnded:
      case ClarificationErrorCode.TaskArchived:
        return ErrorCode.Conflict;
      case ClarificationErrorCode.WaitEnded:
        return ErrorCode.WaitEnded;
      case ClarificationErrorCode.Expired:
        return ErrorCode.Expired;
      case ClarificationErrorCode.InProgress:
      case ClarificationErrorCode.OutcomeUnknown:
        return ErrorCode.Unavailable;
      case ClarificationErrorCode.DeliveryFailed:
      case ClarificationErrorCode.Internal:
        return ErrorCode.InternalError;
      default:
        return assertNever(this.code);
    }
  }
}
