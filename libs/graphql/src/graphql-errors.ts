import mercurius from 'mercurius';
import { AuthorizationError, AuthorizationErrorCode } from '../../authorization/src/index.js';
import { ClarificationError, ClarificationErrorCode } from '../../clarification/src/index.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable, RequestBoundaryError } from '../../common/src/index.js';
import { RateLimitError } from '../../rate-limit/src/index.js';
import { TasksError, TasksErrorCode } from '../../tasks/src/index.js';
import { WebhookError, WebhookErrorCode } from '../../webhooks/src/index.js';

export enum GraphqlErrorCode {
  BadUserInput = 'BAD_USER_INPUT',
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  Unauthenticated = 'UNAUTHENTICATED',
  /** The database is unreachable, or a winner's delivery is not settled yet: retry shortly. */
  Unavailable = 'SERVICE_UNAVAILABLE',
  RateLimited = 'RATE_LIMITED',
  Internal = 'INTERNAL',
}

function clarificationCode(code: ClarificationErrorCode): GraphqlErrorCode {
  switch (code) {
    case ClarificationErrorCode.NotFound:
      return GraphqlErrorCode.NotFound;
    case ClarificationErrorCode.Validation:
      return GraphqlErrorCode.BadUserInput;
    case ClarificationErrorCode.NotActive:
    case ClarificationErrorCode.SessionEnded:
    case ClarificationErrorCode.TaskArchived:
    case ClarificationErrorCode.WaitEnded:
    case ClarificationErrorCode.Expired:
      return GraphqlErrorCode.Conflict;
    case ClarificationErrorCode.InProgress:
      return GraphqlErrorCode.Unavailable;
    case ClarificationErrorCode.DeliveryFailed:
    case ClarificationErrorCode.Internal:
      return GraphqlErrorCode.Internal;
    default: {
      const unhandled: never = code;
      throw new Error(`unmapped code ${String(unhandled)}`);
    }
  }
}

function tasksCode(code: TasksErrorCode): GraphqlErrorCode {
  switch (code) {
    case TasksErrorCode.WorkspaceNotFound:
    case TasksErrorCode.TaskNotFound:
    case TasksErrorCode.SessionNotFound:
    case TasksErrorCode.TurnNotFound:
      return GraphqlErrorCode.NotFound;
    case TasksErrorCode.TaskArchived:
    case TasksErrorCode.SessionEnded:
    case TasksErrorCode.InvalidStateTransition:
      return GraphqlErrorCode.Conflict;
    case TasksErrorCode.InvalidArgument:
      return GraphqlErrorCode.BadUserInput;
    default: {
      const unhandled: never = code;
      throw new Error(`unmapped code ${String(unhandled)}`);
    }
  }
}

function authorizationCode(code: AuthorizationErrorCode): GraphqlErrorCode {
  switch (code) {
    case AuthorizationErrorCode.Unauthenticated:
      return GraphqlErrorCode.Unauthenticated;
    case AuthorizationErrorCode.NotFound:
      return GraphqlErrorCode.NotFound;
    case AuthorizationErrorCode.InvalidArgument:
      return GraphqlErrorCode.BadUserInput;
    default: {
      const unhandled: never = code;
      throw new Error(`unmapped code ${String(unhandled)}`);
    }
  }
}

function webhookCode(code: WebhookErrorCode): GraphqlErrorCode {
  switch (code) {
    case WebhookErrorCode.NotFound:
      return GraphqlErrorCode.NotFound;
    case WebhookErrorCode.InvalidArgument:
      return GraphqlErrorCode.BadUserInput;
    case WebhookErrorCode.LimitReached:
      return GraphqlErrorCode.Conflict;
    default: {
      const unhandled: never = code;
      throw new Error(`unmapped code ${String(unhandled)}`);
    }
  }
}

/** The one mapping of every module's typed errors onto GraphQL errors with `extensions.code`. */
export function toGraphqlError(error: unknown): Error {
  if (error instanceof mercurius.ErrorWithProps) return error;
  if (error instanceof RequestBoundaryError) return new mercurius.ErrorWithProps(error.message, error.extensions);
  if (error instanceof ClarificationError) return new mercurius.ErrorWithProps(error.message, { code: clarificationCode(error.code) });
  if (error instanceof TasksError) return new mercurius.ErrorWithProps(error.message, { code: tasksCode(error.code) });
  if (error instanceof WebhookError) return new mercurius.ErrorWithProps(error.message, { code: webhookCode(error.code) });
  if (error instanceof AuthorizationError) {
    const code = authorizationCode(error.code);
    return new mercurius.ErrorWithProps(error.message, { code }, code === GraphqlErrorCode.Unauthenticated ? 401 : 200);
  }
  if (isDatabaseUnavailable(error)) {
    return new mercurius.ErrorWithProps(DATABASE_UNAVAILABLE_MESSAGE, { code: GraphqlErrorCode.Unavailable }, 503);
  }
  if (error instanceof RateLimitError) {
    return new mercurius.ErrorWithProps(error.message, { code: GraphqlErrorCode.RateLimited, retryAfterSeconds: error.decision.resetSeconds }, 429);
  }
  return new mercurius.ErrorWithProps('internal error', { code: GraphqlErrorCode.Internal });
}
